set -x
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
# export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
ls /usr/local/nvidia/share/glvnd/egl_vendor.d/ /usr/share/glvnd/egl_vendor.d/ 2>&1
./build/bin/texla info 2>&1 | tee $OUT/info.txt
timeout 240 ./build/bin/test-texla ops vec dense solvers state banded > $OUT/smoke.log 2>&1; echo rc=$?
grep -E "FAIL|suite .*:|passed" $OUT/smoke.log | head -60
