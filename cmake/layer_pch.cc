// The translation unit that builds the layers' precompiled header in the clang
// tree (CMakeLists.txt, floe_layer_pch); it has no code of its own.
