"""skelanim: skeletal character animation, the Python binding of the C libraries (cffi, ABI mode).

Libraries are found through $SKELANIM_LIB_DIR, the folder recorded at build time, or the dynamic
loader's search (docs/python.md). Errors of the library raise skelanim.Error (subclasses per
code) with the library's message.
"""
from ._lib import (C, Error, InvalidArgument, OutOfMemory, IOFailure, ParseError, InvalidData, Unsupported,
                   LimitExceeded, LibraryNotFound, ffi, has_import, library_paths)
from .core import (Skeleton, Pose, Clip, TrackInfo, Skin, Primitive, Mesh, Asset, clip_from_tracks, load,
                   load_gltf, load_bvh, load_skc, import_file, mannequin, sprite, save_skc, local_to_model, skin_palette,
                   blend, blend_two, LOOP_MODES)
from .offline import compress, resample, shell_error, key_rate
from .skinning import SkinnedMesh
from .analysis import Leg, MotionAnalysis, analyze, cycle_facing, find_cycle, find_legs, heels_to_ground, legs_from_humanoid, legs_from_mesh, foot_level
from . import ik, layers, memory, playback
from .memory import Allocator
from .playback import Player, Fader, advance_synced
from .layers import Layer, RootMotion, apply_layers, make_additive, apply_additive, mask
from .retarget import Retargeter, humanoid_map, standing_rest
from .mirror import HumanoidMap, bone_mirror, bone_required, mirror_clip, mirror_pairs, turn_clip
from .graph import Graph, GraphInstance
from .world import Terrain
from .locomotion import Locomotor, MotionGroup
from .procedural import ProceduralWalker
from .legged import LeggedWalker, creature
from .contacts import Contact, find_contacts, restore_contacts

__version__ = '%d.%d.%d' % (C.SK_VERSION_MAJOR, C.SK_VERSION_MINOR, C.SK_VERSION_PATCH)
