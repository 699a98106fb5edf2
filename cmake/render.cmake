# Rendering: headless images and GIFs (OpenGL 3.3 core through libepoxy on an
# EGL surfaceless context, Mesa's software rasteriser when there is no GPU).
# Lives outside the core library; linked into the skelanim tool only.
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy)
pkg_check_modules(EGL REQUIRED IMPORTED_TARGET egl)
pkg_check_modules(PNG REQUIRED IMPORTED_TARGET libpng)
find_library(GIF_LIBRARY gif REQUIRED)

file(GLOB SK_RENDER_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/render/*.c)
add_library(skelanim_render STATIC ${SK_RENDER_SOURCES})
target_compile_options(skelanim_render PRIVATE ${SK_WARN})
target_compile_definitions(skelanim_render PRIVATE _POSIX_C_SOURCE=200809L)
target_include_directories(skelanim_render PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/render)
target_link_libraries(skelanim_render PUBLIC skelanim_static PkgConfig::EPOXY PkgConfig::EGL PkgConfig::PNG ${GIF_LIBRARY} m)
target_link_libraries(skelanim PRIVATE skelanim_render)
