/* jsonread.c - locate and decode JSON values without building a tree. */
#include "bale_backend.h"
#include "bale_backend_util.h"

#include <stdlib.h>
#include <string.h>

#define JSONR_MAX_DEPTH 64

static const char *jsonr_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *jsonr_skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
		else if ((unsigned char)*p < 0x20)
			return NULL;
	}
	return NULL;
}

static const char *jsonr_skip(const char *p, const char *end, int depth);

/* An object or array: values (and "key": for objects) separated by ','. */
static const char *jsonr_skip_container(const char *p, const char *end,
    int depth)
{
	char close = *p == '{' ? '}' : ']';
	int first = 1;

	if (depth > JSONR_MAX_DEPTH)
		return NULL;
	for (p = jsonr_ws(p + 1, end); p && p < end; p = jsonr_ws(p, end)) {
		if (*p == close && first)
			return p + 1;
		if (close == '}') {
			if (*p != '"' || !(p = jsonr_skip_string(p, end)))
				return NULL;
			p = jsonr_ws(p, end);
			if (p >= end || *p != ':')
				return NULL;
			p = jsonr_ws(p + 1, end);
		}
		p = jsonr_skip(p, end, depth + 1);
		if (!p)
			return NULL;
		p = jsonr_ws(p, end);
		if (p < end && *p == close)
			return p + 1;
		if (p >= end || *p != ',')
			return NULL;
		p++;
		first = 0;
	}
	return NULL;
}

static const char *jsonr_skip(const char *p, const char *end, int depth)
{
	p = jsonr_ws(p, end);
	if (p >= end)
		return NULL;
	if (*p == '"')
		return jsonr_skip_string(p, end);
	if (*p == '{' || *p == '[')
		return jsonr_skip_container(p, end, depth);
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		while (p < end && strchr("+-0123456789.eE", *p))
			p++;
		return p;
	}
	if (end - p >= 4 && (!memcmp(p, "true", 4) || !memcmp(p, "null", 4)))
		return p + 4;
	if (end - p >= 5 && !memcmp(p, "false", 5))
		return p + 5;
	return NULL;
}

static int jsonr_key_is(const char *p, const char *q, const char *key)
{
	size_t n = strlen(key);

	/* keys we look for never need escapes: compare the raw text */
	return (size_t)(q - p) == n + 2 && memcmp(p + 1, key, n) == 0;
}

const char *bale_jsonr_find(const char *s, const char *end, const char *key,
    const char **vend)
{
	const char *p = jsonr_ws(s, end);
	const char *k;
	const char *v;

	if (p >= end || *p != '{')
		return NULL;
	for (p = jsonr_ws(p + 1, end); p < end && *p == '"';) {
		k = p;
		p = jsonr_skip_string(p, end);
		if (!p)
			return NULL;
		p = jsonr_ws(p, end);
		if (p >= end || *p != ':')
			return NULL;
		v = jsonr_ws(p + 1, end);
		p = jsonr_skip(v, end, 1);
		if (!p)
			return NULL;
		if (jsonr_key_is(k, jsonr_skip_string(k, end), key)) {
			*vend = p;
			return v;
		}
		p = jsonr_ws(p, end);
		if (p >= end || *p != ',')
			return NULL;
		p = jsonr_ws(p + 1, end);
	}
	return NULL;
}

const char *bale_jsonr_next(const char **cur, const char *end,
    const char **vend)
{
	const char *p = jsonr_ws(*cur, end);
	const char *v;

	if (p >= end || (*p != '[' && *p != ','))
		return NULL;
	v = jsonr_ws(p + 1, end);
	if (*p == '[' && v < end && *v == ']')
		return NULL;
	p = jsonr_skip(v, end, 1);
	if (!p)
		return NULL;
	*vend = p;
	*cur = p;
	return v;
}

static int jsonr_hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t jsonr_utf8(char *o, unsigned cp)
{
	if (cp < 0x80)
		return o[0] = (char)cp, 1;
	if (cp < 0x800)
		return o[0] = (char)(0xc0 | cp >> 6),
		    o[1] = (char)(0x80 | (cp & 0x3f)), 2;
	if (cp < 0x10000)
		return o[0] = (char)(0xe0 | cp >> 12),
		    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		    o[2] = (char)(0x80 | (cp & 0x3f)), 3;
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* \uXXXX at p (after the backslash-u): a code point, a surrogate pair, or
 * a lone \udc80-\udcff standing for one raw byte. Returns bytes written
 * to o, or 0 on invalid input; advances *pp past what it used. */
static size_t jsonr_unicode(const char **pp, const char *end, char *o)
{
	unsigned hi;
	unsigned lo;

	if (jsonr_hex4(*pp, end, &hi) != 0)
		return 0;
	*pp += 4;
	if (hi >= 0xdc80 && hi <= 0xdcff)
		return o[0] = (char)(hi & 0xff), 1;
	if (hi < 0xd800 || hi > 0xdfff)
		return jsonr_utf8(o, hi);
	if (hi > 0xdbff || end - *pp < 6 || (*pp)[0] != '\\' ||
	    (*pp)[1] != 'u' || jsonr_hex4(*pp + 2, end, &lo) != 0 ||
	    lo < 0xdc00 || lo > 0xdfff)
		return 0;
	*pp += 6;
	return jsonr_utf8(o, 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
}

char *bale_jsonr_string(const char *v, const char *vend)
{
	const char *p = v + 1;
	char *out;
	char *o;
	size_t n;

	if (vend - v < 2 || *v != '"' || vend[-1] != '"')
		return NULL;
	out = malloc((size_t)(vend - v));	/* decoding never grows */
	if (!out)
		return NULL;
	for (o = out; p < vend - 1; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case '"': case '\\': case '/': *o++ = *p; break;
		case 'u':
			p++;
			n = jsonr_unicode(&p, vend - 1, o);
			if (n == 0)
				goto out_bad;
			o += n;
			p--;
			break;
		default:
			goto out_bad;
		}
	}
	*o = '\0';
	return out;
out_bad:
	free(out);
	return NULL;
}

int bale_jsonr_u64(const char *v, const char *vend, uint64_t *out)
{
	uint64_t x = 0;
	const char *p;

	if (v >= vend)
		return -1;
	for (p = v; p < vend; p++) {
		if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*out = x;
	return 0;
}

int bale_jsonr_key_u64(const char *s, const char *end, const char *key,
    uint64_t *out)
{
	const char *vend;
	const char *v = bale_jsonr_find(s, end, key, &vend);

	return v && bale_jsonr_u64(v, vend, out) == 0 ? 0 : -1;
}

char *bale_jsonr_key_string(const char *s, const char *end, const char *key)
{
	const char *vend;
	const char *v = bale_jsonr_find(s, end, key, &vend);

	return v && *v == '"' ? bale_jsonr_string(v, vend) : NULL;
}
