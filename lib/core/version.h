/* The version of hydra-c: what every program prints for --version. */
#ifndef HY_CORE_VERSION_H
#define HY_CORE_VERSION_H
#define HY_VERSION "0.1.0"
#endif
