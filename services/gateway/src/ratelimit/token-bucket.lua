-- One atomic token-bucket step per request. KEYS[1]: the bucket (a project's writes, or a budget of
-- failed authentications). ARGV: refill rate per second, burst (capacity), and 1 to take a token or
-- -1 to give one back (never above the burst). Time is Redis's own clock, so gateways with skewed
-- clocks share one consistent bucket.
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then
  tokens = burst
  ts = now
end
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
local retry_ms = 0
if count < 0 or tokens >= 1 then
  tokens = math.min(burst, tokens - count)
  allowed = 1
else
  retry_ms = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return { allowed, retry_ms }
