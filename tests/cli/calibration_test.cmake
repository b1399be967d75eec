# The shipped calibrations are exactly what `rigplan calibrate` fits from the shipped measurements,
# and the leave-one-GPU-out and leave-one-architecture-out validations run end to end. Run by
# CTest, one step per test so that they run side by side, as
# `cmake -DRIGPLAN=... -DSOURCE=... -DSTEP=... -P calibration_test.cmake` where STEP is perf-fit,
# perf-loo, perf-loo-arch, serving-fit or serving-loo.

# The calibration `rigplan calibrate CSV` fits equals the shipped TOML, apart from the day it ran.
function(expect_fit csv shipped_toml)
  execute_process(COMMAND ${RIGPLAN} calibrate ${csv} WORKING_DIRECTORY ${SOURCE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE fitted ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rigplan calibrate ${csv}: exit ${rc}\n${err}")
  endif()
  file(READ ${SOURCE}/${shipped_toml} shipped)
  string(REGEX REPLACE "20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]" "DATE" fitted_undated "${fitted}")
  string(REGEX REPLACE "20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]" "DATE" shipped_undated "${shipped}")
  if(NOT fitted_undated STREQUAL shipped_undated)
    get_filename_component(name ${shipped_toml} NAME_WE)
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.fitted.toml "${fitted}")
    message(FATAL_ERROR "${shipped_toml} differs from what `rigplan calibrate ${csv}` fits now "
                        "(written to ${name}.fitted.toml): refit and commit it")
  endif()
endfunction()

# `rigplan validate CSV FLAG --json` (FLAG: --loo or --loo-arch) succeeds and its answer holds
# each of the needles.
function(expect_loo csv flag)
  execute_process(COMMAND ${RIGPLAN} validate ${SOURCE}/${csv} ${flag} --json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rigplan validate ${csv} ${flag}: exit ${rc}\n${err}")
  endif()
  foreach(needle IN LISTS ARGN)
    string(FIND "${out}" "${needle}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "rigplan validate ${csv} ${flag} --json lacks '${needle}'")
    endif()
  endforeach()
endfunction()

if(STEP STREQUAL "perf-fit")
  expect_fit(validation/throughput.csv data/calibration/perf.toml)
elseif(STEP STREQUAL "perf-loo")
  expect_loo(validation/throughput.csv --loo "\"leave_one_gpu_out\": true" "\"n\": 3001"
             "\"skipped\": 0" "\"median_rel_err\"")
elseif(STEP STREQUAL "perf-loo-arch")
  expect_loo(validation/throughput.csv --loo-arch "\"leave_one_architecture_out\": true"
             "\"leave_one_gpu_out\": false" "\"n\": 3001" "\"skipped\": 0")
elseif(STEP STREQUAL "serving-fit")
  expect_fit(validation/serving.csv data/calibration/inference.toml)
elseif(STEP STREQUAL "serving-loo")
  expect_loo(validation/serving.csv --loo "\"leave_one_gpu_out\": true" "\"skipped\": 0"
             "\"n_absolute\"")
else()
  message(FATAL_ERROR "calibration_test.cmake: unknown STEP '${STEP}'")
endif()
