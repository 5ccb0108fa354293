package redisbreaker

import "github.com/redis/go-redis/v9"

// prelude is the start of every script: a strict reader of the integers
// the keys hold, the server's time in µs, and the shared state as {gen,
// state, k, remaining µs, delay µs}.
//
// Anyone with access to Redis can write the keys, so every field is read
// with int: a missing field is 0, and anything but a decimal integer of
// at most 2^53 in size (what a Lua number holds exactly) ends the script
// with a BADVALUE error reply, which the Go side takes as "store unavailable"
// for that breaker. A key of the wrong type ends it with WRONGTYPE, to
// the same effect. The ranges (a known state, no negative count...) are
// checked in Go; Lua's tonumber also reads "1e3" and "0x10", which are
// integers all the same. Fields are read by name with HMGET, never HGETALL, so
// that a hash stuffed with fields costs a script no more.
const prelude = `
local MAXI = 9007199254740991
local function int(v)
  if not v then return 0 end
  local n = tonumber(v)
  if not n or n ~= math.floor(n) or n > MAXI or n < -MAXI then
    error({err = 'BADVALUE a breaker field holds no integer of at most 2^53'})
  end
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
// calls, failures, slow, streak, ttl ms, span µs (since the same
// breaker's previous batch: its outcomes are in that span). Returns {state..., calls, failures, slow, streak}: the
// window's sums over its last 10 buckets and the fleet's streak while
// closed, the probes' tally while half-open.
//
// The window's field ft is when (Redis TIME, µs) a batch that ended in
// failures last came. A batch with a success sets the streak to
// the one it ended with, unless ft falls within its span: its successes
// may then be older than a failure the fleet already counts, and it
// only adds its own trailing failures. (A breaker's batch of successes
// can wait up to FlushMax for its round while the window is clean.)
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
    -- v[1] the streak; bucket j at v[2+4j .. 5+4j]: t, c, f, s.
    local v = redis.call('HMGET', KEYS[2], 'streak',
      't0', 'c0', 'f0', 's0', 't1', 'c1', 'f1', 's1', 't2', 'c2', 'f2', 's2', 't3', 'c3', 'f3', 's3',
      't4', 'c4', 'f4', 's4', 't5', 'c5', 'f5', 's5', 't6', 'c6', 'f6', 's6', 't7', 'c7', 'f7', 's7',
      't8', 'c8', 'f8', 's8', 't9', 'c9', 'f9', 's9', 'ft')
    for j = 1, 42 do v[j] = int(v[j]) end
    local ft = v[42]
    if calls > 0 then
      local o = 2 + 4 * i
      if v[o] ~= b then
        v[o], v[o + 1], v[o + 2], v[o + 3] = b, 0, 0, 0
      end
      v[o + 1], v[o + 2], v[o + 3] = v[o + 1] + calls, v[o + 2] + fails, v[o + 3] + slow
      if fails == calls then
        v[1] = v[1] + fails
      elseif now - tonumber(ARGV[8]) < ft then
        v[1] = v[1] + streak
      else
        v[1] = streak
      end
      if streak > 0 or fails == calls then ft = now end
      redis.call('HSET', KEYS[2], 't' .. i, fmt(b), 'c' .. i, fmt(v[o + 1]), 'f' .. i, fmt(v[o + 2]),
        's' .. i, fmt(v[o + 3]), 'streak', fmt(v[1]), 'ft', fmt(ft))
      redis.call('PEXPIRE', KEYS[2], ARGV[7])
    end
    out[4] = v[1]
    for o = 2, 38, 4 do
      local t = v[o]
      if t > b - 10 and t <= b then
        out[1], out[2], out[3] = out[1] + v[o + 1], out[2] + v[o + 2], out[3] + v[o + 3]
      end
    end
  end
end
return {cur[1], cur[2], cur[3], cur[4], cur[5], out[1], out[2], out[3], out[4]}
`)
