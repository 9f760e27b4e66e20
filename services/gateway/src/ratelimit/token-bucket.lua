-- One atomic token-bucket step. KEYS[1]: the bucket (a project's writes, or a budget of failed
-- authentications). ARGV: refill rate per second, burst (capacity), and n > 0 to take up to n
-- tokens (as many whole tokens as the bucket holds, at least one, or none) or n < 0 to give -n back
-- (never above the burst). Answers the tokens taken and, when none could be, the milliseconds until
-- one is back. Time is Redis's own clock, so gateways with skewed clocks share one consistent bucket.
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
local taken = 0
local retry_ms = 0
if count < 0 then
  tokens = math.min(burst, tokens - count)
elseif tokens >= 1 then
  taken = math.min(count, math.floor(tokens))
  tokens = tokens - taken
else
  retry_ms = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return { taken, retry_ms }
