# glad.mk - what the GL and EGL loaders are generated for: one list, read by the Makefile
# (include) and by CMakeLists.txt (parsed: keep to `NAME := value` lines). The generator is
# glad 2 (Debian's python3-glad, or `pip install glad2`); --reproducible uses the Khronos XML
# bundled with glad, so the same glad version gives the same files without a network.
GLAD_GL_API  := gl:core=4.6
GLAD_EGL_API := egl=1.5
GLAD_EGL_EXT := EGL_EXT_platform_base,EGL_EXT_platform_device,EGL_EXT_device_base,EGL_EXT_device_enumeration,EGL_EXT_device_query,EGL_MESA_platform_surfaceless,EGL_KHR_surfaceless_context,EGL_KHR_create_context,EGL_KHR_no_config_context
