# Runs one libFuzzer target for SECONDS from its seeds: cmake -DFUZZER=... -DSEEDS=... -DWORK=...
# -DSECONDS=... -P run_fuzz.cmake. A finding fails the test and is left in WORK/artifacts.
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=65536
          -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/ ${WORK}/corpus ${SEEDS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER}: a finding (exit ${rc}); the input is in ${WORK}/artifacts")
endif()
