# CMake toolchain for Windows x86_64 with Debian's mingw-w64
# (gcc-mingw-w64-x86-64). bindings/windows/build.sh passes it.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++)   # msgpack-c's project names C++ too
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# and the prefix build.sh builds msgpack-c and libsodium into (TICKSYNC_WIN_DEPS)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 $ENV{TICKSYNC_WIN_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# No libgcc DLL to ship beside ticksync.dll.
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc")
