-- wrk script: one position event per POST /events, tokens taken round robin from the arguments.
-- Optional pacing: WHEREABOUTS_DELAY_MS in the environment makes each connection wait that long
-- between requests (to hold a rate below the maximum).
local tokens = {}
local counter = 0
local delay_ms = tonumber(os.getenv("WHEREABOUTS_DELAY_MS") or "0")

function init(args)
  for i, token in ipairs(args) do tokens[i] = token end
  counter = math.random(1, 1000000)
end

function delay()
  return delay_ms
end

function request()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  local body = string.format(
    '{"streamIds":["position"],"time":%d,"type":"position/wgs84","content":{"latitude":%.6f,"longitude":%.6f,"horizontalAccuracy":8}}',
    1763700000 + counter, 46.5 + (counter % 1000) / 100000, 6.6 + (counter % 777) / 100000)
  return wrk.format("POST", "/events", {["Authorization"] = token, ["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status ~= 201 then
    io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
  end
end
