/* Level Zero entry points that Debian 12's loader (libze1 1.8.x) lacks but the oneAPI 2025
 * Unified Runtime Level Zero adapter links against. Each forwards to the real loader when it
 * has the symbol (newer loaders) and otherwise reports ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
 * which is what a driver without the feature answers. Built at run time by pjrt_cts.native. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef int ze_result_t;
#define ZE_RESULT_ERROR_UNSUPPORTED_FEATURE 0x78000003

static void *real_symbol(const char *name, void *self) {
    void *loader = dlopen("libze_loader.so.1", RTLD_LAZY | RTLD_NOLOAD);
    void *symbol = loader ? dlsym(loader, name) : NULL;
    return symbol == self ? NULL : symbol; /* never call ourselves */
}

ze_result_t zeCommandListHostSynchronize(void *command_list, uint64_t timeout) {
    typedef ze_result_t (*fn_t)(void *, uint64_t);
    fn_t real = (fn_t)real_symbol("zeCommandListHostSynchronize", (void *)zeCommandListHostSynchronize);
    return real ? real(command_list, timeout) : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zeDeviceGetRootDevice(void *device, void **root_device) {
    typedef ze_result_t (*fn_t)(void *, void **);
    fn_t real = (fn_t)real_symbol("zeDeviceGetRootDevice", (void *)zeDeviceGetRootDevice);
    return real ? real(device, root_device) : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zeImageViewCreateExt(void *context, void *device, const void *desc, void *image, void **image_view) {
    typedef ze_result_t (*fn_t)(void *, void *, const void *, void *, void **);
    fn_t real = (fn_t)real_symbol("zeImageViewCreateExt", (void *)zeImageViewCreateExt);
    return real ? real(context, device, desc, image, image_view) : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
