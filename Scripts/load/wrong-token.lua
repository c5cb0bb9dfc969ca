-- wrk script: GET /events with a token no one has (a different one each time), as a client
-- guessing tokens does. The server answers 401, then 429 once the address is over its budget.
local counter = 0

function init(args)
  counter = math.random(1, 1000000000)
end

function request()
  counter = counter + 1
  return wrk.format("GET", "/events", {["Authorization"] = string.format("guess%026d", counter)})
end
