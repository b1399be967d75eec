# Read by CTest after the lists of discovered GoogleTest tests: their labels (tests/CMakeLists.txt;
# CONTRIBUTING.md says what each label means).
foreach(test IN LISTS rigplan_tests_TESTS)
  set_tests_properties("${test}" PROPERTIES LABELS "unit;fast")
endforeach()
foreach(test IN LISTS rigplan_cli_tests_TESTS)
  set_tests_properties("${test}" PROPERTIES LABELS "cli")  # two take 10-20 s: not fast
endforeach()
foreach(test IN LISTS rigplan_serve_tests_TESTS)
  set_tests_properties("${test}" PROPERTIES LABELS "serve")
endforeach()
