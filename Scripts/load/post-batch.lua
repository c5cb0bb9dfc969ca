-- wrk script: POST / with a batch of WHEREABOUTS_BATCH events.create calls (default 1000): a
-- device's track uploaded at once, one position a second from a random start within
-- WHEREABOUTS_SPAN seconds (default a year) from 1735689600 (2025-01-01); tokens round robin
-- from the arguments. Optional pacing: WHEREABOUTS_DELAY_MS makes each connection wait that long
-- between requests. WHEREABOUTS_BATCH_TIMES=random gives each event of a batch its own random
-- instant within the span instead (a harder case for the store's time index).
local tokens = {}
local counter = 0
local batch = tonumber(os.getenv("WHEREABOUTS_BATCH") or "1000")
local span = tonumber(os.getenv("WHEREABOUTS_SPAN") or "31536000")
local delay_ms = tonumber(os.getenv("WHEREABOUTS_DELAY_MS") or "0")
local random_times = os.getenv("WHEREABOUTS_BATCH_TIMES") == "random"

function init(args)
  for i, token in ipairs(args) do tokens[i] = token end
  math.randomseed(os.time() + math.random(1, 100000))
end

function delay()
  return delay_ms
end

function request()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  local calls = {}
  local start = 1735689600 + math.random(0, span)
  local latitude, longitude = 46 + math.random(), 6 + math.random()
  for i = 1, batch do
    latitude = latitude + (math.random() - 0.5) * 0.0001
    longitude = longitude + (math.random() - 0.5) * 0.0001
    calls[i] = string.format(
      '{"method":"events.create","params":{"streamIds":["position"],"time":%d,"type":"position/wgs84","content":{"latitude":%.6f,"longitude":%.6f}}}',
      random_times and (1735689600 + math.random(0, span)) or (start + i), latitude, longitude)
  end
  return wrk.format("POST", "/", {["Authorization"] = token, ["Content-Type"] = "application/json"},
    "[" .. table.concat(calls, ",") .. "]")
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. "\n")
  end
end
