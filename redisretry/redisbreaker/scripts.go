package redisbreaker

import "github.com/redis/go-redis/v9"

// prelude is the start of every script: a strict reader of the integers
// the keys hold, the server's time in µs, and the shared state as {gen,
// state, k, remaining µs, delay µs}.
//
// Anyone with access to Redis can write the keys, so every field is read
// with int: a missing field is 0, and anything but a decimal integer of
// at most 2^53 (what a Lua number holds exactly) ends the script with a
// BADVALUE error reply, which the Go side takes as "store unavailable"
// for that breaker. A key of the wrong type ends it with WRONGTYPE, to
// the same effect. The ranges (a known state, no negative count...) are
// checked in Go. Fields are read by name with HMGET, never HGETALL, so
// that a hash stuffed with fields costs a script no more.
const prelude = `
local MAXI = 9007199254740991
local function int(v)
  if not v then return 0 end
  if type(v) ~= 'string' or #v > 17 or not string.find(v, '^%-?%d+$') then
    error({err = 'BADVALUE a breaker field holds no integer'})
  end
  local n = tonumber(v)
  if n > MAXI or n < -MAXI then error({err = 'BADVALUE a breaker field is out of range'}) end
  return n
end
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function state(key, now)
  local v = redis.call('HMGET', key, 'gen', 'state', 'k', 'until', 'delay')
  local gen, st, k, til, delay = int(v[1]), int(v[2]), int(v[3]), int(v[4]), int(v[5])
  local rem = 0
  if st == 1 or st == 2 then rem = math.max(til - now, 0) end
  return {gen, st, k, rem, delay}
end
local function fmt(n) return string.format('%d', n) end
`

// publishScript: KEYS state, window, probes; ARGV gen, state, k,
// remaining µs, delay µs, channel, ttl ms. Returns {ok, state...}.
var publishScript = redis.NewScript(prelude + `
local now = now_us()
local cur = state(KEYS[1], now)
if cur[1] ~= tonumber(ARGV[1]) then
  return {0, cur[1], cur[2], cur[3], cur[4], cur[5]}
end
local gen = cur[1] + 1
redis.call('HSET', KEYS[1], 'gen', fmt(gen), 'state', ARGV[2], 'k', ARGV[3], 'until', fmt(now + tonumber(ARGV[4])), 'delay', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('PUBLISH', ARGV[6], table.concat({fmt(gen), ARGV[2], ARGV[3], ARGV[4], ARGV[5]}, ' '))
return {1, gen, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])}
`)

// claimScript: KEYS state, probes; ARGV gen, n, ttl ms. Returns {1} if
// a probe slot was taken, {0} if not. A claimed count outside [0, 2^31)
// is a BADVALUE: no fleet claims that many.
var claimScript = redis.NewScript(prelude + `
local cur = state(KEYS[1], 0)
if cur[1] ~= tonumber(ARGV[1]) or cur[2] ~= 1 then return {0} end
local c = int(redis.call('HGET', KEYS[2], 'claimed'))
if c < 0 or c > 2147483647 then error({err = 'BADVALUE claimed probes out of range'}) end
if c >= tonumber(ARGV[2]) then return {0} end
redis.call('HSET', KEYS[2], 'claimed', fmt(c + 1))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {1}
`)

// releaseScript: KEYS state, probes; ARGV gen.
var releaseScript = redis.NewScript(prelude + `
local cur = state(KEYS[1], 0)
if cur[1] ~= tonumber(ARGV[1]) then return {0} end
local c = int(redis.call('HGET', KEYS[2], 'claimed'))
if c < 0 or c > 2147483647 then error({err = 'BADVALUE claimed probes out of range'}) end
if c > 0 then redis.call('HSET', KEYS[2], 'claimed', fmt(c - 1)) end
return {1}
`)

// addScript: KEYS state, window, probes; ARGV gen, bucket width µs,
// calls, failures, slow, streak, ttl ms. Returns {state..., calls,
// failures, slow, streak}: the window's sums over its last 10 buckets
// and the fleet's streak while closed, the probes' tally while half-open.
var addScript = redis.NewScript(prelude + `
local now = now_us()
local cur = state(KEYS[1], now)
local calls, fails, slow, streak = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local out = {0, 0, 0, 0}
if cur[1] == tonumber(ARGV[1]) then
  if cur[2] == 1 then
    local v = redis.call('HMGET', KEYS[3], 'calls', 'failures', 'slow')
    out = {int(v[1]) + calls, int(v[2]) + fails, int(v[3]) + slow, 0}
    if calls > 0 then
      redis.call('HSET', KEYS[3], 'calls', fmt(out[1]), 'failures', fmt(out[2]), 'slow', fmt(out[3]))
      redis.call('PEXPIRE', KEYS[3], ARGV[7])
    end
  elseif cur[2] == 0 or cur[2] == 5 then
    local b = math.floor(now / tonumber(ARGV[2]))
    local i = b % 10
    local names = {'streak'}
    for j = 0, 9 do
      names[#names + 1] = 't' .. j
      names[#names + 1] = 'c' .. j
      names[#names + 1] = 'f' .. j
      names[#names + 1] = 's' .. j
    end
    local v = redis.call('HMGET', KEYS[2], unpack(names))
    local h = {}
    for j = 1, #names do h[names[j]] = int(v[j]) end
    if calls > 0 then
      local si = tostring(i)
      if h['t' .. si] ~= b then
        h['t' .. si], h['c' .. si], h['f' .. si], h['s' .. si] = b, 0, 0, 0
      end
      h['c' .. si] = h['c' .. si] + calls
      h['f' .. si] = h['f' .. si] + fails
      h['s' .. si] = h['s' .. si] + slow
      if fails == calls then
        h['streak'] = h['streak'] + fails
      else
        h['streak'] = streak
      end
      redis.call('HSET', KEYS[2], 't' .. si, fmt(b), 'c' .. si, fmt(h['c' .. si]), 'f' .. si, fmt(h['f' .. si]),
        's' .. si, fmt(h['s' .. si]), 'streak', fmt(h['streak']))
      redis.call('PEXPIRE', KEYS[2], ARGV[7])
    end
    out[4] = h['streak']
    for j = 0, 9 do
      local t = h['t' .. j]
      if t > b - 10 and t <= b then
        out[1] = out[1] + h['c' .. j]
        out[2] = out[2] + h['f' .. j]
        out[3] = out[3] + h['s' .. j]
      end
    end
  end
end
return {cur[1], cur[2], cur[3], cur[4], cur[5], out[1], out[2], out[3], out[4]}
`)
