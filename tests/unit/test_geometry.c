/* test_geometry.c - resize modes: parsing, checks, sizes and offsets. */
#include "check.h"
#include "geometry.h"

#include "bale.h"
#include "bale_backend_util.h"

static struct bale_plan plan(const char *mode, enum bale_frame frame,
    int upscale, int w, int h)
{
	struct bale_geometry g = { 0 };
	struct bale_errbuf err;
	struct bale_plan p;

	CHECK(bale_geometry_parse(&g, mode) == 0);
	g.frame = frame;
	g.upscale = upscale;
	CHECK_EQ(BALE_OK, bale_geometry_check(&g, &err));
	bale_geometry_plan(&g, w, h, &p);
	return p;
}

static void test_parse(void)
{
	struct bale_geometry g = { 0 };
	int w, h;

	CHECK(bale_geometry_parse(&g, "shorter:256") == 0);
	CHECK_EQ(BALE_FIT_SHORTER, g.fit);
	CHECK_EQ(256, g.w);
	CHECK(bale_geometry_parse(&g, "fit:640x480") == 0);
	CHECK_EQ(BALE_FIT_INSIDE, g.fit);
	CHECK_EQ(480, g.h);
	CHECK(bale_geometry_parse(&g, "exact:1x65535") == 0);
	CHECK(bale_geometry_parse(&g, "exact:1x65536") != 0);
	CHECK(bale_geometry_parse(&g, "shorter:0") != 0);
	CHECK(bale_geometry_parse(&g, "shorter:-5") != 0);
	CHECK(bale_geometry_parse(&g, "shorter:12px") != 0);
	CHECK(bale_geometry_parse(&g, "fit:640") != 0);
	CHECK(bale_geometry_parse(&g, "wider:10") != 0);
	CHECK(bale_geometry_parse_size("224x224", &w, &h) == 0);
	CHECK(bale_geometry_parse_size("224x", &w, &h) != 0);
	CHECK(bale_geometry_parse_size("x224", &w, &h) != 0);
	CHECK(bale_geometry_parse_size(" 2x2", &w, &h) != 0);
}

static void test_check(void)
{
	struct bale_geometry g = { BALE_FIT_NONE, BALE_FRAME_CROP, 0, 0, 0 };
	struct bale_errbuf err;

	/* crop, no resize */
	CHECK_EQ(BALE_EINVAL, bale_geometry_check(&g, &err));
	g.fit = BALE_FIT_EXACT;
	g.w = g.h = 10;
	CHECK_EQ(BALE_EINVAL, bale_geometry_check(&g, &err));
	g.fit = BALE_FIT_LONGER;
	/* nothing to crop */
	CHECK_EQ(BALE_EINVAL, bale_geometry_check(&g, &err));
	g.frame = BALE_FRAME_PAD;
	CHECK_EQ(BALE_OK, bale_geometry_check(&g, &err));
	g.fit = BALE_FIT_SHORTER;
	/* nothing to pad */
	CHECK_EQ(BALE_EINVAL, bale_geometry_check(&g, &err));
}

static void test_sizes(void)
{
	struct bale_plan p;

	p = plan("shorter:256", BALE_FRAME_NONE, 0, 500, 375);
	CHECK_EQ(341, p.scaled_w);	/* 500 * 256 / 375 = 341.33 */
	CHECK_EQ(256, p.scaled_h);
	p = plan("shorter:256", BALE_FRAME_NONE, 0, 375, 500);
	CHECK_EQ(256, p.scaled_w);
	CHECK_EQ(341, p.scaled_h);
	p = plan("longer:100", BALE_FRAME_NONE, 0, 300, 199);
	CHECK_EQ(100, p.scaled_w);
	CHECK_EQ(66, p.scaled_h);	/* 66.33 */
	p = plan("longer:100", BALE_FRAME_NONE, 0, 300, 201);
	CHECK_EQ(67, p.scaled_h);	/* 67.0 */
	p = plan("exact:10x20", BALE_FRAME_NONE, 0, 5, 5);
	CHECK_EQ(10, p.out_w);		/* exact enlarges without asking */
	CHECK_EQ(20, p.out_h);
	p = plan("shorter:256", BALE_FRAME_NONE, 0, 100, 80);
	CHECK_EQ(100, p.out_w);		/* never enlarges unasked */
	CHECK_EQ(80, p.out_h);
	p = plan("shorter:256", BALE_FRAME_NONE, 1, 100, 80);
	CHECK_EQ(320, p.out_w);
	CHECK_EQ(256, p.out_h);
	p = plan("shorter:1", BALE_FRAME_NONE, 0, 10000, 2);
	CHECK_EQ(5000, p.out_w);
	CHECK_EQ(1, p.out_h);
	p = plan("longer:1", BALE_FRAME_NONE, 0, 10000, 2);
	CHECK_EQ(1, p.out_h);		/* never 0 */
}

static void test_frames(void)
{
	struct bale_plan p;

	p = plan("shorter:224", BALE_FRAME_CROP, 0, 500, 375);
	CHECK_EQ(299, p.scaled_w);	/* 298.67 */
	CHECK_EQ(224, p.out_w);
	CHECK_EQ(224, p.out_h);
	CHECK_EQ(37, p.off_x);		/* (299 - 224) / 2 */
	CHECK_EQ(0, p.off_y);
	p = plan("fit:200x100", BALE_FRAME_CROP, 0, 400, 400);
	CHECK_EQ(200, p.scaled_w);	/* covers the box */
	CHECK_EQ(200, p.scaled_h);
	CHECK_EQ(50, p.off_y);
	CHECK_EQ(100, p.out_h);
	p = plan("fit:200x100", BALE_FRAME_PAD, 0, 400, 400);
	CHECK_EQ(100, p.scaled_w);	/* fits inside */
	CHECK_EQ(200, p.out_w);
	CHECK_EQ(50, p.off_x);
	p = plan("fit:200x100", BALE_FRAME_CROP, 0, 50, 300);
	CHECK_EQ(50, p.out_w);		/* too small to crop across */
	CHECK_EQ(100, p.out_h);
	p = plan("longer:64", BALE_FRAME_PAD, 0, 10, 20);
	CHECK_EQ(64, p.out_w);		/* padded, not enlarged */
	CHECK_EQ(10, p.scaled_w);
	CHECK_EQ(27, p.off_x);
	CHECK_EQ(22, p.off_y);
}

int main(void)
{
	test_parse();
	test_check();
	test_sizes();
	test_frames();
	return CHECK_DONE();
}
