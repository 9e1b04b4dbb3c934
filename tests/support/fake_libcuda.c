/* A stand-in for libcuda.so, for tests/gpu_cli.rs on machines without a GPU: just enough of
 * the driver API for `tessera run --target gpu` to reach each of its refusals.
 * FAKE_CUDA (environment) picks the device:
 *   unset/"none": cuInit fails with CUDA_ERROR_NO_DEVICE;
 *   "sm75":       a compute capability 7.5 device (too old for the PTX);
 *   "sm90":       a 9.0 device whose JIT rejects every module, with a log. */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;

enum { OK = 0, NO_DEVICE = 100, INVALID_PTX = 218, NOT_FOUND = 500 };

static const char *mode(void) {
  const char *m = getenv("FAKE_CUDA");
  return m ? m : "none";
}

static int context;
static CUcontext current;

CUresult cuInit(unsigned flags) {
  (void)flags;
  return strcmp(mode(), "none") == 0 ? NO_DEVICE : OK;
}

CUresult cuGetErrorString(CUresult e, const char **s) {
  *s = e == NO_DEVICE ? "no CUDA-capable device is detected"
       : e == INVALID_PTX ? "a PTX JIT compilation failed"
       : "unknown error";
  return OK;
}

CUresult cuGetErrorName(CUresult e, const char **s) {
  *s = e == NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : e == INVALID_PTX ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR_UNKNOWN";
  return OK;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return OK;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "Fake GPU", (size_t)len);
  return OK;
}

CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
  (void)d;
  int sm90 = strcmp(mode(), "sm90") == 0;
  switch (attribute) {
  case 75: /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    *v = sm90 ? 9 : 7;
    break;
  case 76: /* ..._MINOR */
    *v = sm90 ? 0 : 5;
    break;
  default:
    *v = 0;
  }
  return OK;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d;
  *c = &context;
  return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  (void)d;
  return OK;
}

CUresult cuCtxGetCurrent(CUcontext *c) {
  *c = current;
  return OK;
}

CUresult cuCtxSetCurrent(CUcontext c) {
  current = c;
  return OK;
}

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values) {
  (void)module;
  (void)image;
  char *log = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < n; i++) {
    if (options[i] == 5) /* CU_JIT_ERROR_LOG_BUFFER */
      log = values[i];
    if (options[i] == 6) /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
      size = (size_t)values[i];
  }
  if (log && size > 0) {
    strncpy(log, "ptxas fatal   : the fake driver assembles nothing", size - 1);
    log[size - 1] = 0;
  }
  return INVALID_PTX;
}
