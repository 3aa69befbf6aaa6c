/* A C host of skidpad's C ABI, run by tests/c_host.rs. Each command prints
 * what the Rust test compares with the pinned hashes:
 *
 *   host reference              the core's reference scenario, its hash
 *   host record OUT.skr OUT.skg two AI cars on brandwood recorded (with a
 *                               rewind), verified here, a ghost of car 0
 *   host play FILE.skr          a replay played to the end, seeked back
 *   host refusals               bad arguments and bad files, each refused
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skidpad.h"

/* Stops the program with the library's own message when a call fails. */
#define CHECK(call)                                                          \
    do {                                                                     \
        SkidpadStatus status_ = (call);                                      \
        if (status_ != SKIDPAD_STATUS_OK) {                                  \
            char message_[512];                                              \
            skidpad_last_error_message(message_, sizeof message_);           \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__,          \
                    __LINE__, #call, skidpad_status_name(status_), message_); \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* Fails the program unless `call` returns `expected`; prints the message. */
static void expect_status(SkidpadStatus got, SkidpadStatus expected, const char *what) {
    char message[512];
    skidpad_last_error_message(message, sizeof message);
    if (got != expected) {
        fprintf(stderr, "%s: got %s, expected %s (%s)\n", what, skidpad_status_name(got),
                skidpad_status_name(expected), message);
        exit(1);
    }
    printf("refused %s: %s: %s\n", what, skidpad_status_name(got), message);
}

static void print_hash(const char *label, const SkidpadHash *hash) {
    printf("%s ", label);
    for (size_t i = 0; i < sizeof hash->bytes; i++) {
        printf("%02x", hash->bytes[i]);
    }
    printf("\n");
}

static void write_file(const char *path, const SkidpadBuffer *buffer) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(skidpad_buffer_data(buffer), 1, skidpad_buffer_len(buffer), f) !=
                         skidpad_buffer_len(buffer)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*len);
    if (bytes == NULL || fread(bytes, 1, *len, f) != *len) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return bytes;
}

/* The reference scenario of skidpad-fixtures (SPEC §3): four AI cars on
 * brandwood's line over flat ground, 600 steps of 1/60 s, with level-of-
 * detail and surface changes on the way. */
static void reference(void) {
    static const char *presets[4] = {"fwd_hatchback", "rwd_sports", "rwd_sports", "fwd_hatchback"};
    SkidpadTrack *track;
    SkidpadWorld *world;
    CHECK(skidpad_track_builtin("brandwood", &track));
    CHECK(skidpad_world_new(&world));
    uint32_t cars[4];
    for (int k = 0; k < 4; k++) {
        SkidpadStartPose pose = {60.0 - 12.0 * k, k % 2 == 0 ? 2.5 : -2.5, 0.0, 5.0};
        CHECK(skidpad_world_add_car_preset(world, presets[k], &pose, &cars[k]));
        CHECK(skidpad_world_set_driver(world, cars[k], track));
    }
    for (int step = 0; step < 600; step++) {
        switch (step) {
        case 120: CHECK(skidpad_world_set_lod(world, cars[1], SKIDPAD_LOD_SINGLE_TRACK, 0.0)); break;
        case 200: CHECK(skidpad_world_set_wheel_surface(world, cars[0], SKIDPAD_WHEEL_FRONT_LEFT, 3)); break;
        case 260: CHECK(skidpad_world_set_surface(world, cars[0], 0)); break;
        case 300: CHECK(skidpad_world_set_lod(world, cars[2], SKIDPAD_LOD_FULL, 500.0)); break;
        case 360: CHECK(skidpad_world_set_lod(world, cars[1], SKIDPAD_LOD_FULL, 0.0)); break;
        case 420: CHECK(skidpad_world_set_lod(world, cars[3], SKIDPAD_LOD_FROZEN, 0.0)); break;
        case 480: CHECK(skidpad_world_set_lod(world, cars[3], SKIDPAD_LOD_FULL, 0.0)); break;
        default: break;
        }
        CHECK(skidpad_world_step(world, 1.0 / 60.0));
    }
    SkidpadHash hash;
    CHECK(skidpad_world_hash(world, &hash));
    print_hash("reference", &hash);

    uint32_t speed_channel;
    double speed, speed_channel_value;
    SkidpadPose pose;
    CHECK(skidpad_channel_index("speed", &speed_channel));
    CHECK(skidpad_world_speed(world, cars[0], &speed));
    CHECK(skidpad_world_channel(world, cars[0], speed_channel, &speed_channel_value));
    CHECK(skidpad_world_pose(world, cars[0], &pose));
    printf("car0 speed %.17g channel %.17g pose %.17g %.17g %.17g\n", speed, speed_channel_value,
           pose.x, pose.y, pose.z);
    skidpad_world_free(world);
    skidpad_track_free(track);
}

/* Two AI cars on brandwood's own surface, recorded for 20 s with a ghost
 * of car 0, verified here from the encoded bytes. */
static void record(const char *replay_path, const char *ghost_path) {
    SkidpadTrack *track;
    SkidpadGround *ground;
    SkidpadWorld *world;
    CHECK(skidpad_track_builtin("brandwood", &track));
    CHECK(skidpad_ground_of_track(track, &ground));
    CHECK(skidpad_world_new(&world));
    CHECK(skidpad_world_set_ground(world, ground));
    uint32_t cars[2];
    for (int k = 0; k < 2; k++) {
        SkidpadStartPose pose = {40.0 - 10.0 * k, 0.0, 0.0, 10.0};
        CHECK(skidpad_world_add_car_preset(world, k == 0 ? "rwd_sports" : "fwd_hatchback", &pose, &cars[k]));
        CHECK(skidpad_world_set_driver(world, cars[k], track));
    }
    SkidpadRecorderOptions options;
    CHECK(skidpad_recorder_options_default(&options));
    options.track = track;
    SkidpadRecorder *recorder;
    SkidpadGhostRecorder *ghost_recorder;
    CHECK(skidpad_recorder_new(world, &options, &recorder));
    CHECK(skidpad_ghost_recorder_new(cars[0], 1, &ghost_recorder));
    for (int step = 0; step < 1100; step++) {
        CHECK(skidpad_recorder_step(recorder, world, 1.0 / 60.0));
        CHECK(skidpad_ghost_recorder_sample(ghost_recorder, world, 1.0 / 60.0));
    }
    /* A flashback: 100 steps on, then back to step 1100, bit for bit. */
    SkidpadHash at_1100, back;
    CHECK(skidpad_world_hash(world, &at_1100));
    for (int step = 0; step < 100; step++) {
        CHECK(skidpad_recorder_step(recorder, world, 1.0 / 60.0));
    }
    CHECK(skidpad_recorder_rewind(recorder, world, 1100));
    CHECK(skidpad_world_hash(world, &back));
    if (memcmp(back.bytes, at_1100.bytes, sizeof back.bytes) != 0) {
        fprintf(stderr, "the rewind did not land where the world was at step 1100\n");
        exit(1);
    }
    for (int step = 0; step < 100; step++) {
        CHECK(skidpad_recorder_step(recorder, world, 1.0 / 60.0));
        CHECK(skidpad_ghost_recorder_sample(ghost_recorder, world, 1.0 / 60.0));
    }
    SkidpadReplay *replay;
    CHECK(skidpad_recorder_finish(recorder, world, &replay));
    expect_status(skidpad_recorder_step(recorder, world, 1.0 / 60.0), SKIDPAD_STATUS_INVALID_ARGUMENT,
                  "a step of a finished recorder");
    skidpad_recorder_free(recorder);

    SkidpadHash world_hash, replay_hash;
    CHECK(skidpad_world_hash(world, &world_hash));
    CHECK(skidpad_replay_final_hash(replay, &replay_hash));
    print_hash("recorded", &world_hash);
    print_hash("replay_final", &replay_hash);

    SkidpadBuffer *bytes;
    CHECK(skidpad_replay_encode(replay, &bytes));
    write_file(replay_path, bytes);
    SkidpadVerifyReport report;
    SkidpadBuffer *desync = NULL;
    CHECK(skidpad_verify(skidpad_buffer_data(bytes), skidpad_buffer_len(bytes), NULL, &report, &desync));
    printf("verified steps %llu keyframes %u desyncs %llu\n", (unsigned long long)report.steps,
           report.keyframes, (unsigned long long)report.desyncs);
    printf("rewinds %llu seconds %.6f\n", (unsigned long long)report.rewinds, report.rewound_seconds);
    print_hash("verified_final", &report.final_hash);
    if (desync != NULL) {
        fprintf(stderr, "%.*s\n", (int)skidpad_buffer_len(desync), (const char *)skidpad_buffer_data(desync));
        exit(1);
    }
    skidpad_buffer_free(bytes);

    SkidpadGhost *ghost;
    CHECK(skidpad_ghost_recorder_finish(ghost_recorder, &ghost));
    skidpad_ghost_recorder_free(ghost_recorder);
    SkidpadBuffer *ghost_bytes;
    CHECK(skidpad_ghost_encode(ghost, &ghost_bytes));
    write_file(ghost_path, ghost_bytes);
    skidpad_buffer_free(ghost_bytes);
    float duration;
    size_t frames;
    SkidpadGhostPose at;
    CHECK(skidpad_ghost_duration(ghost, &duration));
    CHECK(skidpad_ghost_frame_count(ghost, &frames));
    CHECK(skidpad_ghost_pose_at(ghost, duration, &at));
    SkidpadPose end;
    CHECK(skidpad_world_pose(world, cars[0], &end));
    printf("ghost frames %zu duration %.9g end %.9g %.9g car %.9g %.9g\n", frames, duration, at.x, at.y,
           (float)end.x, (float)end.y);
    skidpad_ghost_free(ghost);

    skidpad_replay_free(replay);
    skidpad_world_free(world);
    skidpad_ground_free(ground);
    skidpad_track_free(track);
}

/* A replay played to its end, its last hash printed, then seeked back to
 * the middle and played again to the same end. */
static void play(const char *path) {
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    SkidpadReplay *replay;
    CHECK(skidpad_replay_decode(bytes, len, NULL, &replay));
    free(bytes);
    uint64_t steps;
    CHECK(skidpad_replay_step_count(replay, &steps));
    SkidpadPlayer *player;
    CHECK(skidpad_player_new(replay, &player));
    skidpad_replay_free(replay); /* the player keeps its share */
    CHECK(skidpad_player_play_to_end(player));
    uint64_t desyncs;
    SkidpadHash end;
    CHECK(skidpad_player_desyncs(player, &desyncs));
    CHECK(skidpad_world_hash(skidpad_player_world(player), &end));
    printf("played steps %llu desyncs %llu\n", (unsigned long long)steps, (unsigned long long)desyncs);
    print_hash("played_final", &end);

    CHECK(skidpad_player_seek(player, steps / 2));
    uint8_t played = 1;
    while (played) {
        CHECK(skidpad_player_advance(player, &played));
    }
    SkidpadHash again;
    CHECK(skidpad_world_hash(skidpad_player_world(player), &again));
    CHECK(skidpad_player_desyncs(player, &desyncs));
    printf("replayed_from_middle desyncs %llu\n", (unsigned long long)desyncs);
    print_hash("replayed_final", &again);

    uint32_t car0;
    SkidpadPose pose;
    CHECK(skidpad_player_car_id(player, 0, &car0));
    CHECK(skidpad_world_pose(skidpad_player_world(player), car0, &pose));
    printf("car0 at %.17g %.17g\n", pose.x, pose.y);
    skidpad_player_free(player);
}

/* What a careless or hostile caller hands over, each refused with a status
 * and a message, nothing crashing. */
static void refusals(void) {
    SkidpadWorld *world;
    CHECK(skidpad_world_new(&world));
    uint32_t car;
    SkidpadStartPose pose = {0.0, 0.0, 0.0, 0.0};
    expect_status(skidpad_world_new(NULL), SKIDPAD_STATUS_NULL_POINTER, "a NULL out pointer");
    expect_status(skidpad_world_step(NULL, 1.0 / 60.0), SKIDPAD_STATUS_NULL_POINTER, "a NULL world");
    expect_status(skidpad_world_add_car_preset(world, "no_such_car", &pose, &car),
                  SKIDPAD_STATUS_INVALID_ARGUMENT, "an unknown preset");
    expect_status(skidpad_world_add_car_json(world, (const uint8_t *)"{\"name\":\"cut\",", 14, &pose, &car),
                  SKIDPAD_STATUS_INVALID_ARGUMENT, "a cut-off definition");
    CHECK(skidpad_world_add_car_preset(world, "fwd_hatchback", &pose, &car));
    SkidpadInput input = {0};
    input.throttle = NAN;
    expect_status(skidpad_world_set_input(world, car, &input), SKIDPAD_STATUS_SIMULATION, "a NaN throttle");
    expect_status(skidpad_world_step(world, -1.0), SKIDPAD_STATUS_SIMULATION, "a negative timestep");
    expect_status(skidpad_world_set_lod(world, car, 77, 0.0), SKIDPAD_STATUS_INVALID_ARGUMENT,
                  "a level of detail that is none");
    expect_status(skidpad_world_set_driver(world, car + 100, NULL), SKIDPAD_STATUS_UNKNOWN_CAR, "an unknown car");
    double value;
    expect_status(skidpad_world_channel(world, car, skidpad_channel_count(), &value),
                  SKIDPAD_STATUS_INVALID_ARGUMENT, "a channel id past the last");
    size_t count;
    uint32_t ids[1];
    CHECK(skidpad_world_car_ids(world, ids, 1, &count));
    expect_status(skidpad_world_car_ids(world, ids, 0, &count), SKIDPAD_STATUS_BUFFER_TOO_SMALL, "no room for ids");
    char name[8];
    size_t needed = skidpad_channel_name(0, name, sizeof name);
    printf("channel 0 needs %zu bytes, cut to \"%s\"\n", needed, name);

    static const unsigned char garbage[] = "SKRP this is not a replay at all";
    SkidpadReplay *replay = NULL;
    expect_status(skidpad_replay_decode(garbage, sizeof garbage, NULL, &replay), SKIDPAD_STATUS_DECODE,
                  "garbage as a replay");
    SkidpadGhost *ghost = NULL;
    expect_status(skidpad_ghost_decode(garbage, 3, &ghost), SKIDPAD_STATUS_DECODE, "three bytes as a ghost");
    expect_status(skidpad_replay_decode(NULL, 10, NULL, &replay), SKIDPAD_STATUS_NULL_POINTER,
                  "NULL bytes with a length");
    if (replay != NULL || ghost != NULL) {
        fprintf(stderr, "a refused decode wrote its output\n");
        exit(1);
    }
    skidpad_world_free(world);
    skidpad_world_free(NULL);
    printf("refusals done\n");
}

int main(int argc, char **argv) {
    printf("simulation_version %u\n", skidpad_simulation_version());
    if (argc == 2 && strcmp(argv[1], "reference") == 0) {
        reference();
    } else if (argc == 4 && strcmp(argv[1], "record") == 0) {
        record(argv[2], argv[3]);
    } else if (argc == 3 && strcmp(argv[1], "play") == 0) {
        play(argv[2]);
    } else if (argc == 2 && strcmp(argv[1], "refusals") == 0) {
        refusals();
    } else {
        fprintf(stderr, "usage: host reference | record OUT.skr OUT.skg | play FILE.skr | refusals\n");
        return 2;
    }
    return 0;
}
