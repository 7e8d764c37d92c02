# report: results JSON, statistics, verdicts and the before/after tables (golden files in
# data/report/; set KDA_UPDATE_GOLDEN=1 to rewrite them after an intended format change).
kda_add_test(report_tests
  SOURCES report/stats_test.cpp report/results_test.cpp report/compare_test.cpp
          report/table_test.cpp report/merge_test.cpp
  LIBS kda_report)
target_include_directories(report_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
