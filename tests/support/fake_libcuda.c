/* A stand-in for libcuda.so, for tests/gpu_cli.rs on machines without a GPU: just enough of
 * the driver API for `tessera run --target gpu` to reach each of its refusals.
 * FAKE_CUDA (environment) picks the device:
 *   unset/"none": cuInit fails with CUDA_ERROR_NO_DEVICE;
 *   "sm75":       a compute capability 7.5 device (too old for the PTX);
 *   "sm90":       a 9.0 device whose JIT rejects every module, with a log;
 *   "run":        a 9.0 device whose memory is host memory and whose launches compute nothing:
 *                 each launch appends `NAME grid=G block=B` to the file FAKE_CUDA_LOG, and
 *                 every timed interval between two events is 1 ms. */
#include <stdint.h>
#include <stdio.h>
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
  int sm90 = strcmp(mode(), "sm90") == 0 || strcmp(mode(), "run") == 0;
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
  if (strcmp(mode(), "run") == 0) {
    *module = &context;
    return OK;
  }
  if (log && size > 0) {
    strncpy(log, "ptxas fatal   : the fake driver assembles nothing", size - 1);
    log[size - 1] = 0;
  }
  return INVALID_PTX;
}

/* The "run" device. */

CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  (void)module;
  *f = strdup(name);
  return OK;
}

CUresult cuModuleUnload(void *module) {
  (void)module;
  return OK;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
  (void)stream;
  (void)params;
  (void)extra;
  const char *path = getenv("FAKE_CUDA_LOG");
  if (path) {
    FILE *log = fopen(path, "a");
    if (log) {
      fprintf(log, "%s grid=%u,%u,%u block=%u,%u,%u shared=%u\n", (const char *)f, gx, gy, gz, bx, by, bz, shared);
      fclose(log);
    }
  }
  return OK;
}

CUresult cuMemAlloc_v2(uint64_t *p, size_t n) {
  *p = (uint64_t)(uintptr_t)malloc(n);
  return OK;
}

CUresult cuMemFree_v2(uint64_t p) {
  free((void *)(uintptr_t)p);
  return OK;
}

CUresult cuMemsetD8Async(uint64_t p, unsigned char c, size_t n, void *stream) {
  (void)stream;
  memset((void *)(uintptr_t)p, c, n);
  return OK;
}

CUresult cuMemcpyHtoDAsync_v2(uint64_t dst, const void *src, size_t n, void *stream) {
  (void)stream;
  memcpy((void *)(uintptr_t)dst, src, n);
  return OK;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, uint64_t src, size_t n, void *stream) {
  (void)stream;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return OK;
}

CUresult cuMemcpyDtoDAsync_v2(uint64_t dst, uint64_t src, size_t n, void *stream) {
  (void)stream;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return OK;
}

CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  return OK;
}

CUresult cuCtxSynchronize(void) { return OK; }

CUresult cuEventCreate(void **e, unsigned flags) {
  (void)flags;
  *e = malloc(1);
  return OK;
}

CUresult cuEventDestroy_v2(void *e) {
  free(e);
  return OK;
}

CUresult cuEventRecord(void *e, void *stream) {
  (void)e;
  (void)stream;
  return OK;
}

CUresult cuEventSynchronize(void *e) {
  (void)e;
  return OK;
}

CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  (void)start;
  (void)end;
  *ms = 1.0f;
  return OK;
}
