"""Which functions of the C API have no Python wrapper yet, and why.

Every function the public headers declare is callable from Python through skelanim.C (the raw
cffi functions, with skelanim.ffi to build their arguments). The classes and functions of this
package wrap the ones below them; NOT_WRAPPED lists the rest by pattern with the reason
(tests/test_api.py checks that the two together cover the headers exactly)."""

NOT_WRAPPED = [
    (r'sk_(vec3|quat|mat4|transform)_\w+', 'math helpers: numpy does the same on the returned arrays'),
    (r'sk_(alloc|realloc|error_set|asset_(alloc|strdup|allocator|create_empty))',
     'allocator and error plumbing for C code building assets (skelanim.Allocator is an sk_allocator for '
     'the calls that take one)'),
    (r'sk_pose_(alloc|free|check|rest)', 'skelanim.Pose owns its arrays in numpy memory instead'),
    (r'sk_clip_builder_(add_track_ref\w*|reserve|set_fetch)',
     "importers' builder hooks (keys kept by reference, fetched late); clip_from_tracks copies the keys"),
    (r'sk_clip_(cursor_size|cursor_cache_size|cursor_ahead_size|sample_cursor|sample_tracks)',
     'cursors for sequential playback: the same results as Clip.sample, a C-side speed-up'),
    (r'sk_(soa_pose_\w+|\w+_soa|clip_samples_soa_directly|clip_sample_soa_update|local_to_model_soa_many|soa_many_scratch_floats)',
     'the structure-of-arrays crowd path: the same bits as the sk_pose functions that are wrapped'),
    (r'sk_batch_\w+', 'the thread pool calls back per character from its workers; not bound yet'),
    (r'sk_(motor|blendspace)_\w+', 'the motor and blend spaces: not bound yet (players, faders, layers are)'),
    (r'sk_graph_(set_param|set_pose_source|source_count|source_weight)',
     'external pose sources of a state machine (C callbacks) and parameters by index: not bound yet'),
    (r'sk_retarget_(source|target)', 'the skeletons given at creation: Retargeter.source / .target hold them'),
    (r'sk_retarget_map_json_\w+', 'JSON retarget maps: not bound yet'),
    (r'sk_locomotor_(adjust|advance|sample|body_joint|clip_time|set_group_weight)',
     'the locomotor split into its phases: Locomotor.update runs all three'),
    (r'sk_(motion_(sync_offsets|group_(blend|clip_phase|footbase|leg_count|motion)|tracker_\w+|analysis_create|'
     r'analysis_load|analyze_backward)|leg_default_points)',
     "motion groups' internals, the tracker, loaders' entry points: not bound yet (analyze(backward=True) is)"),
    (r'sk_(path_\w+|planar_rig_create)', 'the path follower and the planar rig: not bound yet'),
    (r'sk_(file_\w+|gltf_load_memory|glb_write_(file_ex|memory|memory_ex)|bvh_(load_memory|write_\w+|euler_name)|'
     r'skc_(checksum|load_memory|write_memory))',
     'file callbacks and the in-memory readers and writers: not bound yet (the file ones are)'),
    (r'sk_import_(assimp_version|can_read|extensions|memory)', 'importer introspection: not bound yet'),
    (r'sk_(skinned_mesh_(has_tangents|influence_count|target_count|vertex_influences)|skin_joint_map|'
     r'primitive_vertex_position)', 'skinned-mesh introspection: not bound yet'),
    (r'sk_(local_to_model_(range|masked)|skeleton_sort)', 'partial forward kinematics, sorting: not bound yet'),
    (r'sk_simd_\w+', 'SIMD levels are chosen by the library from the CPU'),
    (r'sk_terrain_(bumps_height|mesh_from_asset|mesh_get_info|mesh_terrain_brute_force)',
     'terrain extras: not bound yet (Terrain.height works on every terrain)'),
]
