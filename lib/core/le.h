/* Little-endian fixed-width fields of the binary formats (the specs in formats/):
 * explicit byte packing, independent of the host's byte order and of struct
 * layout. */
#ifndef HY_CORE_LE_H
#define HY_CORE_LE_H

#include <stdint.h>
#include <string.h>

static inline void hy_put_u16le(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void hy_put_u32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void hy_put_u64le(uint8_t *p, uint64_t v)
{
	hy_put_u32le(p, (uint32_t)v);
	hy_put_u32le(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t hy_get_u16le(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t hy_get_u32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t hy_get_u64le(const uint8_t *p)
{
	return (uint64_t)hy_get_u32le(p) | (uint64_t)hy_get_u32le(p + 4) << 32;
}

/* Two's complement, without relying on implementation-defined conversion. */
static inline int32_t hy_get_i32le(const uint8_t *p)
{
	uint32_t u = hy_get_u32le(p);
	return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

/* IEEE binary32. */
static inline void hy_put_f32le(uint8_t *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	hy_put_u32le(p, u);
}

static inline float hy_get_f32le(const uint8_t *p)
{
	uint32_t u = hy_get_u32le(p);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

#endif
