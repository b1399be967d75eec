# The shipped calibration is exactly what `rigplan calibrate` fits from the shipped measurements,
# and the leave-one-GPU-out validation runs end to end. Run by CTest as
# `cmake -DRIGPLAN=... -DSOURCE=... -P calibration_test.cmake`.
execute_process(COMMAND ${RIGPLAN} calibrate validation/throughput.csv WORKING_DIRECTORY ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE fitted ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rigplan calibrate: exit ${rc}\n${err}")
endif()
file(READ ${SOURCE}/data/calibration/perf.toml shipped)
# The fit records the day it ran; compare everything else.
string(REGEX REPLACE "20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]" "DATE" fitted_undated "${fitted}")
string(REGEX REPLACE "20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]" "DATE" shipped_undated "${shipped}")
if(NOT fitted_undated STREQUAL shipped_undated)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/perf.fitted.toml "${fitted}")
  message(FATAL_ERROR "data/calibration/perf.toml differs from what `rigplan calibrate "
                      "validation/throughput.csv` fits now (written to perf.fitted.toml): refit and "
                      "commit it")
endif()

execute_process(COMMAND ${RIGPLAN} validate ${SOURCE}/validation/throughput.csv --loo --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rigplan validate --loo: exit ${rc}\n${err}")
endif()
foreach(needle "\"leave_one_gpu_out\": true" "\"n\": 3016" "\"skipped\": 0" "\"median_rel_err\"")
  string(FIND "${out}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "rigplan validate --loo --json lacks '${needle}'")
  endif()
endforeach()

# The same for the inference engines: data/calibration/inference.toml is what `rigplan calibrate
# validation/serving.csv` fits, and its leave-one-GPU-out validation runs.
execute_process(COMMAND ${RIGPLAN} calibrate validation/serving.csv WORKING_DIRECTORY ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE fitted ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rigplan calibrate validation/serving.csv: exit ${rc}\n${err}")
endif()
file(READ ${SOURCE}/data/calibration/inference.toml shipped)
string(REGEX REPLACE "20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]" "DATE" fitted_undated "${fitted}")
string(REGEX REPLACE "20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]" "DATE" shipped_undated "${shipped}")
if(NOT fitted_undated STREQUAL shipped_undated)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/inference.fitted.toml "${fitted}")
  message(FATAL_ERROR "data/calibration/inference.toml differs from what `rigplan calibrate "
                      "validation/serving.csv` fits now (written to inference.fitted.toml): "
                      "refit and commit it")
endif()
execute_process(COMMAND ${RIGPLAN} validate ${SOURCE}/validation/serving.csv --loo --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rigplan validate serving.csv --loo: exit ${rc}\n${err}")
endif()
foreach(needle "\"leave_one_gpu_out\": true" "\"skipped\": 0" "\"n_absolute\"")
  string(FIND "${out}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "rigplan validate serving.csv --loo --json lacks '${needle}'")
  endif()
endforeach()
