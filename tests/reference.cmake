# reference: the FP64 CPU reference against finite differences, a naive recurrence, its own
# invariants (packing, threads, decay-only), and the input bridge. CPU only; runs in CI.
kda_add_test(reference_tests
  SOURCES
    reference/test_problems.cpp
    reference/fd_test.cpp
    reference/invariants_test.cpp
    reference/naive_test.cpp
    reference/row_test.cpp
    reference/inputs_test.cpp
    reference/chunked_test.cpp
    reference/segmented_test.cpp
  LIBS kda_reference)
