# Rendering: headless images and GIFs (OpenGL 3.3 core through libepoxy on an
# EGL surfaceless context, Mesa's software rasteriser when there is no GPU).
# Lives outside the core library; linked into the skelanim tool only.
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy)
pkg_check_modules(EGL REQUIRED IMPORTED_TARGET egl)
pkg_check_modules(PNG REQUIRED IMPORTED_TARGET libpng)
find_library(GIF_LIBRARY gif REQUIRED)
find_library(STB_LIBRARY stb REQUIRED)  # Debian's libstb-dev: stb_image for base-colour textures

file(GLOB SK_RENDER_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/render/*.c)
add_library(skelanim_render STATIC ${SK_RENDER_SOURCES})
target_compile_options(skelanim_render PRIVATE ${SK_WARN})
target_compile_definitions(skelanim_render PRIVATE _POSIX_C_SOURCE=200809L)
target_include_directories(skelanim_render PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/render)
target_link_libraries(skelanim_render PUBLIC skelanim_static PkgConfig::EPOXY PkgConfig::EGL PkgConfig::PNG ${GIF_LIBRARY} ${STB_LIBRARY} ${CMAKE_DL_LIBS} m)
target_link_libraries(skelanim PRIVATE skelanim_render)
# Windows (skelanim view, skelanim demo --window): SDL2. Without it those two
# commands say so; rendering to files still works.
pkg_check_modules(SDL2 IMPORTED_TARGET sdl2)
if(SDL2_FOUND)
  target_compile_definitions(skelanim PRIVATE SK_HAVE_SDL2=1)
  target_link_libraries(skelanim PRIVATE PkgConfig::SDL2)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/panel.cmake)  # the panel of view and play (Dear ImGui)

# Example: the palette uploaded by a plain-OpenGL program (docs/rendering.md).
add_executable(example_gl_palette examples/gl_palette.c)
target_compile_options(example_gl_palette PRIVATE ${SK_WARN})
target_link_libraries(example_gl_palette PRIVATE skelanim_io_static PkgConfig::EPOXY PkgConfig::EGL m)
if(SK_BUILD_TESTS)
  enable_testing()
  # The example must draw the character where the CPU puts it (exit status 1 otherwise).
  add_test(NAME example_gl_palette COMMAND example_gl_palette @mannequin 0.3 ${CMAKE_CURRENT_BINARY_DIR}/gl_palette.ppm)
  set_tests_properties(example_gl_palette PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")
endif()
