-- wrk script: POST batches of events to /v1/events, cycling through the bodies in BODIES_FILE (one batch
-- per line; a JSON-lines body has its line breaks written as the byte 0x1E, put back here), with the
-- CONTENT_TYPE given, and count the events sent. AUTH, when set, is sent as a bearer token.
local bodies = {}
local events_per_body = tonumber(os.getenv("EVENTS_PER_BATCH") or "100")

function init(args)
  for line in io.lines(os.getenv("BODIES_FILE")) do bodies[#bodies + 1] = line:gsub("\30", "\n") end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = os.getenv("CONTENT_TYPE") or "application/json"
  local auth = os.getenv("AUTH")
  if auth then wrk.headers["Authorization"] = "Bearer " .. auth end
  counter = 0
end

function request()
  counter = counter + 1
  return wrk.format(nil, "/v1/events", nil, bodies[(counter % #bodies) + 1])
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("events/s %.0f\n", summary.requests * events_per_body / seconds))
  io.write(string.format("events %d\n", summary.requests * events_per_body))
  io.write(string.format("non-2xx %d\n", summary.errors.status))
  io.write(string.format("p99 %.1f ms\n", latency:percentile(99) / 1000))
end
