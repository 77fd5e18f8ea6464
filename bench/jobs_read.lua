-- wrk script for bench/jobs_bench: GET /v1/jobs/{id}, each connection cycling
-- over the job ids of a file (one id a line), then one summary line that
-- jobs_bench reads. By hand:
--
--   wrk -t2 -c200 -d60s --timeout 10s -s bench/jobs_read.lua \
--       http://127.0.0.1:PORT -- IDS_FILE [TOKEN]
--
-- TOKEN, when given, is sent as "Authorization: Bearer TOKEN".

local threads = 0

function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end

local ids = {}
local next_index = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then ids[#ids + 1] = line end
  end
  if #ids == 0 then error("no job ids in " .. args[1]) end
  if args[2] ~= nil and args[2] ~= "" then
    wrk.headers["Authorization"] = "Bearer " .. args[2]
  end
  -- Threads start apart, so that they do not read the same job at once.
  next_index = ((thread_number or 0) * 7919) % #ids
end

function request()
  next_index = next_index % #ids + 1
  return wrk.format("GET", "/v1/jobs/" .. ids[next_index])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "jobs_bench_wrk requests=%d duration_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
    "non2xx=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.status, e.connect, e.read, e.write, e.timeout))
end
