-- wrk script for bench/site_bench (bench/README.md "Site scale"): prints one
-- summary line that site_bench reads. Requests the URL's own target every
-- time (a client re-reading one answer), or, with SITE_BENCH_TARGETS set to
-- a file of request targets (one a line), each connection cycles over them.
-- By hand:
--
--   wrk -t2 -c64 -d10s -s bench/site_wrk.lua 'http://127.0.0.1:PORT/v1/placement?host=node007'
--   SITE_BENCH_TARGETS=targets wrk -t2 -c64 -d10s -s bench/site_wrk.lua http://127.0.0.1:PORT

local threads = 0

function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end

local targets_file = os.getenv("SITE_BENCH_TARGETS")

if targets_file ~= nil and targets_file ~= "" then
  local targets = {}
  local next_index = 0

  function init(args)
    for line in io.lines(targets_file) do
      if line ~= "" then targets[#targets + 1] = line end
    end
    if #targets == 0 then error("no request targets in " .. targets_file) end
    -- Threads start apart, so that they do not read the same answer at once.
    next_index = ((thread_number or 0) * 7919) % #targets
  end

  function request()
    next_index = next_index % #targets + 1
    return wrk.format("GET", targets[next_index])
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "site_bench_wrk requests=%d duration_us=%d bytes=%d p50_us=%d p99_us=%d max_us=%d " ..
    "non2xx=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50),
    latency:percentile(99), latency.max, e.status, e.connect, e.read, e.write, e.timeout))
end
