// The translation unit that builds the unit tests' precompiled header in the
// clang tree (tests/CMakeLists.txt, floe_test_pch); it has no code of its own.
