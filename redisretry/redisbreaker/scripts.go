package redisbreaker

import "github.com/redis/go-redis/v9"

// prelude is the start of every script: the server's time in µs, and the
// shared state as {gen, state, k, remaining µs, delay µs}.
const prelude = `
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function state(key, now)
  local v = redis.call('HMGET', key, 'gen', 'state', 'k', 'until', 'delay')
  local st = tonumber(v[2]) or 0
  local rem = 0
  if st == 1 or st == 2 then rem = math.max((tonumber(v[4]) or 0) - now, 0) end
  return {tonumber(v[1]) or 0, st, tonumber(v[3]) or 0, rem, tonumber(v[5]) or 0}
end
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
redis.call('HSET', KEYS[1], 'gen', gen, 'state', ARGV[2], 'k', ARGV[3], 'until', string.format('%d', now + tonumber(ARGV[4])), 'delay', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('PUBLISH', ARGV[6], table.concat({gen, ARGV[2], ARGV[3], ARGV[4], ARGV[5]}, ' '))
return {1, gen, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])}
`)

// claimScript: KEYS state, probes; ARGV gen, n, ttl ms. Returns {1} if
// a probe slot was taken, {0} if not.
var claimScript = redis.NewScript(prelude + `
local cur = state(KEYS[1], 0)
if cur[1] ~= tonumber(ARGV[1]) or cur[2] ~= 1 then return {0} end
local c = redis.call('HINCRBY', KEYS[2], 'claimed', 1)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if c > tonumber(ARGV[2]) then
  redis.call('HINCRBY', KEYS[2], 'claimed', -1)
  return {0}
end
return {1}
`)

// releaseScript: KEYS state, probes; ARGV gen.
var releaseScript = redis.NewScript(prelude + `
local cur = state(KEYS[1], 0)
if cur[1] ~= tonumber(ARGV[1]) then return {0} end
if (tonumber(redis.call('HGET', KEYS[2], 'claimed')) or 0) > 0 then
  redis.call('HINCRBY', KEYS[2], 'claimed', -1)
end
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
    if calls > 0 then
      redis.call('HINCRBY', KEYS[3], 'calls', calls)
      redis.call('HINCRBY', KEYS[3], 'failures', fails)
      redis.call('HINCRBY', KEYS[3], 'slow', slow)
      redis.call('PEXPIRE', KEYS[3], ARGV[7])
    end
    local v = redis.call('HMGET', KEYS[3], 'calls', 'failures', 'slow')
    out = {tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0, 0}
  elseif cur[2] == 0 or cur[2] == 5 then
    local b = math.floor(now / tonumber(ARGV[2]))
    local i = string.format('%d', b % 10)
    if calls > 0 then
      local t = tonumber(redis.call('HGET', KEYS[2], 't' .. i))
      if t ~= b then
        redis.call('HSET', KEYS[2], 't' .. i, string.format('%d', b), 'c' .. i, 0, 'f' .. i, 0, 's' .. i, 0)
      end
      redis.call('HINCRBY', KEYS[2], 'c' .. i, calls)
      redis.call('HINCRBY', KEYS[2], 'f' .. i, fails)
      redis.call('HINCRBY', KEYS[2], 's' .. i, slow)
      if fails == calls then
        redis.call('HINCRBY', KEYS[2], 'streak', fails)
      else
        redis.call('HSET', KEYS[2], 'streak', streak)
      end
      redis.call('PEXPIRE', KEYS[2], ARGV[7])
    end
    local all = redis.call('HGETALL', KEYS[2])
    local h = {}
    for j = 1, #all, 2 do h[all[j]] = tonumber(all[j + 1]) end
    out[4] = h['streak'] or 0
    for j = 0, 9 do
      local t = h['t' .. j]
      if t and t > b - 10 and t <= b then
        out[1] = out[1] + h['c' .. j]
        out[2] = out[2] + h['f' .. j]
        out[3] = out[3] + h['s' .. j]
      end
    end
  end
end
return {cur[1], cur[2], cur[3], cur[4], cur[5], out[1], out[2], out[3], out[4]}
`)
