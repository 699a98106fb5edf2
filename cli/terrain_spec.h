/* skelanim command-line tool: the --terrain option, shared by `render` and the
 * coming `locomote` commands (issues #10 and #11).
 *
 *   flat[:H]          the plane y = H (default 0)
 *   ramp[:DEG]        flat at y = 0 for z < 1 m, then rising along +Z at DEG degrees
 *                     (default 15; negative descends; |DEG| < 90), endless
 *   stairs[:RISE,RUN] flat at y = 0 for z < 1 m, then endless stairs climbing along
 *                     +Z: first riser at z = 1 m, RISE metres per step (default 0.17;
 *                     negative: stairs down), treads RUN metres deep (default 0.28)
 *   bumps[:AMP,SEED]  a smooth seeded height field around y = 0 within +-AMP metres
 *                     (default 0.1, seed 1), main wavelength 2 m
 *   ledge[:HEIGHT]    the ground at y = 0 for z < 1 m, a vertical drop of HEIGHT metres
 *                     (default 1) at z = 1 m, the floor at y = -HEIGHT beyond
 *   FILE.glb|.gltf    the triangles of the file's default scene (rest pose) */
#ifndef SK_CLI_TERRAIN_SPEC_H
#define SK_CLI_TERRAIN_SPEC_H

#include "skelanim.h"

typedef enum cli_terrain_kind {
    CLI_TERRAIN_FLAT,
    CLI_TERRAIN_RAMP,
    CLI_TERRAIN_STAIRS,
    CLI_TERRAIN_BUMPS,
    CLI_TERRAIN_LEDGE,
    CLI_TERRAIN_MESH
} cli_terrain_kind;

typedef struct cli_terrain {
    cli_terrain_kind kind;
    sk_terrain terrain;       /* ray casts (reads shape or mesh below: do not copy the struct) */
    sk_terrain_shape shape;   /* built-in terrains' parameters */
    double params[2];         /* as given or defaulted: flat H; ramp degrees; stairs rise, run;
                                 bumps amplitude, seed; ledge height */
    sk_asset *asset;          /* mesh: the loaded file (kept for drawing its triangles) */
    sk_terrain_mesh *mesh;    /* mesh: its ray-cast grid */
    char description[256];    /* one line for the user: "stairs: rise 0.17 m, run 0.28 m, ..." */
} cli_terrain;

/* Parses SPEC (the value of --terrain) into a terrain it allocates; NULL and a
 * message naming the bad part in err ("--terrain ramp:95: the angle must be
 * within (-90, 90) degrees") on failure. */
sk_result cli_terrain_parse(const char *spec, cli_terrain **out, sk_error *err);
void cli_terrain_destroy(cli_terrain *t);
/* The usage lines describing the forms and their defaults. */
extern const char cli_terrain_usage[];

#endif
