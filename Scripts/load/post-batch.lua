-- wrk script: POST / with a batch of WHEREABOUTS_BATCH events.create calls (default 1000),
-- spread over WHEREABOUTS_SPAN seconds (default a year) from 1735689600 (2025-01-01), tokens
-- round robin from the arguments.
local tokens = {}
local counter = 0
local batch = tonumber(os.getenv("WHEREABOUTS_BATCH") or "1000")
local span = tonumber(os.getenv("WHEREABOUTS_SPAN") or "31536000")

function init(args)
  for i, token in ipairs(args) do tokens[i] = token end
  math.randomseed(os.time() + math.random(1, 100000))
end

function request()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  local calls = {}
  for i = 1, batch do
    calls[i] = string.format(
      '{"method":"events.create","params":{"streamIds":["position"],"time":%d,"type":"position/wgs84","content":{"latitude":%.5f,"longitude":%.5f}}}',
      1735689600 + math.random(0, span), 46 + math.random() , 6 + math.random())
  end
  return wrk.format("POST", "/", {["Authorization"] = token, ["Content-Type"] = "application/json"},
    "[" .. table.concat(calls, ",") .. "]")
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. "\n")
  end
end
