# Runs one libFuzzer target for SECONDS from its seeds: cmake -DFUZZER=... -DSEEDS=... -DWORK=...
# -DSECONDS=... -P run_fuzz.cmake. A finding fails the test and is left in WORK/artifacts.
# -timeout is wall time: a seed of http_params (/api/build/propose) takes 5 s of CPU under ASan
# and coverage on the build machine, and `make test` runs two tests at once, so an input is a
# hang only past 30 s.
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=30 -rss_limit_mb=2048 -max_len=65536
          -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/ ${WORK}/corpus ${SEEDS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER}: a finding (exit ${rc}); the input is in ${WORK}/artifacts")
endif()
