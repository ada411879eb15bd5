#!/usr/bin/env python3
"""Writes connector-contract/vectors/tool-payloads-reference.tsv: the `data` each built-in action's
handler really returns on success, as connector-contract/README.md ("Payload shapes") describes it (the payload
follows the handler, not the published output schema, and where the two disagree the payload wins).

Python standard library only. One row per call; the rows are run in order against one fresh
simulator by connector-contract/sim/tests/it/payload_shapes.rs, so a later row may use what an earlier
one created.

Columns:
  tool, action ("-" for a tool-level call), case (a label), args (the params, without `action`),
  shape (below), fit ("fits" or "breaks": whether the payload validates against the action's own
  published `data` schema), verdict (how the action's payloads compare with its published schema,
  the same for every row of one action: agrees, partial, keys, types, undescribed).

Shape language (JSON):
  "string" "integer" "number" "boolean" "null" "object" "array" "any", or alternatives "a|b";
  {"k": S, "k?": S}   an object with exactly these keys ("?" = may be absent); "*": S admits any
                      other key whose value has shape S;
  [S]                 an array whose items have shape S; [S1, S2, ...] a fixed-length tuple;
  {"$or": [S1, S2]}   either shape;
  "$absent"           (top level only) the reply has no `data` key at all.
In args, "$HOME" stands for the simulator's home folder, where the test writes `in.txt`, and
"$advance_ms": N lets N ms of Editor time pass before the call (it is not sent).

    python3 connector-contract/vectors/derive/payload_shapes.py          # (re)write the file
    python3 connector-contract/vectors/derive/payload_shapes.py --check  # fail if it is stale
"""

import json
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "tool-payloads-reference.tsv")

ABSENT = "$absent"
S, I, N, B = "string", "integer", "number", "boolean"
SN = "string|null"

V2 = {"x": N, "y": N}
V3 = {"x": N, "y": N, "z": N}
GOSHAPE = {
    "instance_id": I, "name": S, "path": S, "scene": S, "scene_path": S, "active": B, "tag": S,
    "layer": I, "layer_name": S,
    "transform": {"position": V3, "rotation": V3, "scale": V3, "local_position": V3,
                  "local_rotation": V3, "local_scale": V3},
}
RECT = {
    "instance_id": I, "name": S, "path": S, "preset": S,
    "rect": {"anchor_min": V2, "anchor_max": V2, "anchored_position": V2, "size_delta": V2,
             "pivot": V2, "offset_min": V2, "offset_max": V2, "size": {"width": N, "height": N}},
}
COMP = {"component_id": I, "type": S, "type_short": S, "enabled": "boolean|null"}
# A serialized property value: scalars for scalar properties, small objects otherwise.
SPVALUE = "any"
COMP_PROPS = dict(COMP, properties={"*": SPVALUE})
ASSET = {"path": S, "guid": S, "name": S, "type": SN}
PKG = {"name": S, "version": S, "source": S, "resolved_path": S, "is_direct_dependency": B,
       "display_name": S}
POINT2 = [N, N]
TARGET = {"instance_id": I, "name": S, "path": S, "active": B}
ACTION_ES = {
    "backend": S, "evidence_level": S, "action": S, "target_id": I, "target_path": S,
    "target_destroyed": B, "point": POINT2, "target_top_hit": B, "executed": [S],
    "blocked_by": SN, "selected_after": {"$or": [TARGET, "null"]},
}
EVSYS = {"$or": [{"present": B}, {"present": B, "instance_id": I, "path": S, "input_module": SN}]}
CLEANUP = {"attempted": B, "succeeded": B, "released_keys": [S], "released_mouse_buttons": [S],
           "errors": [S]}
HELD = {"keys": [S], "mouse_buttons": [S]}
SEQ_RESULT = {
    "backend": S, "evidence_level": S, "action": S, "source": "object|null", "steps_total": I,
    "completed_count": I, "failed_step_index": "integer|null", "total_hold_ms": I,
    "total_awaited_frames": I, "elapsed_ms": I, "cleanup": CLEANUP, "held_after": HELD,
    "steps": {"$or": [[{"index": I, "action": S, "mode": S, "control": S}], "null"]},
    "cause_code": SN,
}
DEV = {"$or": [{"present": B}, {"present": B, "name": SN, "type": S}]}
NODE = "object"  # recursive; checked one level down by the rows below
NODE_TOP = {"instance_id": I, "name": S, "active": B, "components?": [S], "children": [NODE]}
SET_RESULT = {"applied": {"*": "any"}, "skipped": {"*": S}, "dry_run": B}
MEMBERS = {"count": I, "truncated": B, "items": ["object"]}
PROFILER_ITEM = {"itemId": I, "name": S, "totalMs": N, "selfMs": N, "calls": I,
                 "children?": ["object"]}
RECORD_STATUS = {"schema": S, "active": B, "pending_save": B, "path": S, "event_count": I,
                 "total_frames": I, "elapsed_ms": I, "stop_reason": SN, "update_type": S}

# Verdicts per action (§3 of the contract README: 97 agree, 3 partial, 1 keys, 15 types,
# 17 undescribed). Tool-level calls are listed under action "-".
PARTIAL = {("bake", "start"), ("bake", "status"), ("bake", "clear"),
           ("find_gameobjects", "-"), ("list_assemblies", "-")}
KEYS = {("scene", "info"), ("find_method", "-"), ("describe_shader", "-")}
TYPES = {("manage_components", "get"), ("manage_components", "set"),
         ("manage_asset_import", "get"), ("manage_asset_import", "set"),
         ("manage_material", "get"), ("manage_material", "set")} | {
    ("manage_settings", a) for a in ("set_audio", "set_graphics", "set_input", "set_lighting",
                                     "set_navmesh", "set_physics", "set_player", "set_quality",
                                     "set_time")}
UNDESCRIBED = {("input", a) for a in ("click", "drag", "inspect", "keyboard", "mouse",
                                      "pointer_down", "pointer_up", "record", "replay", "scroll",
                                      "sequence", "state", "submit")} | {
    ("manage_animation", "get_controller"), ("manage_timeline", "get"), ("manage_ui", "create"),
    ("scene", "hierarchy")} | {
    (t, "-") for t in ("describe_type", "detect_assets", "exec", "game_feel", "refresh_unity",
                       "reserialize", "screenshot", "ui_slop")}


def verdict(tool, action):
    key = (tool, action)
    for name, group in (("partial", PARTIAL), ("keys", KEYS), ("types", TYPES),
                        ("undescribed", UNDESCRIBED)):
        if key in group:
            return name
    return "agrees"


ROWS = []


def row(tool, action, case, args, shape, fit="fits"):
    ROWS.append((tool, action, case, args, shape, fit))


SCENE = "Assets/Scenes/SampleScene.unity"
LEVEL = "Assets/Scenes/Level1.unity"
PLAYER = "/Player"

# ---- scene ----------------------------------------------------------------------------------
row("scene", "info", "camelCase", {},
    {"active": {"name": S, "path": S, "isDirty": B},
     "loaded": [{"name": S, "path": S, "isLoaded": B, "isDirty": B, "rootCount": I}]})
row("scene", "hierarchy", "all scenes", {},
    {"scenes": [{"name": S, "path": S, "is_active": B, "is_dirty": B, "roots": [NODE_TOP]}],
     "node_count": I, "truncated": B})
row("scene", "hierarchy", "root with components", {"root": PLAYER, "components": True},
    {"root": NODE_TOP, "node_count": I, "truncated": B})
row("scene", "list", "bare array", {}, [{"index": I, "path": S, "enabled": B}])
row("scene", "create", "additive", {"path": "Assets/Scenes/Extra.unity", "mode": "additive"},
    {"name": S, "path": S, "mode": S, "template": S})
row("scene", "set_active", "extra", {"path": "Assets/Scenes/Extra.unity"}, {"name": S, "path": S})
row("scene", "save", "extra", {"path": "Assets/Scenes/Extra.unity"},
    {"name": S, "path": S, "saved": B})
row("scene", "save_all", "nothing dirty", {}, {"saved": B, "scenes": [S]})
row("scene", "close", "extra", {"path": "Assets/Scenes/Extra.unity"}, {"name": S, "path": S})
row("scene", "load", "additive", {"path": LEVEL, "mode": "additive"},
    {"name": S, "path": S, "mode": S})
row("scene", "close", "level", {"path": LEVEL}, {"name": S, "path": S})

# ---- manage_gameobject ----------------------------------------------------------------------
row("manage_gameobject", "create", "cube", {"name": "ShapeProbe", "primitive": "cube"}, GOSHAPE)
row("manage_gameobject", "get_transform", "nested transform", {"target": "/ShapeProbe"}, GOSHAPE)
row("manage_gameobject", "move", "world", {"target": "/ShapeProbe", "position": [1, 2, 3]}, GOSHAPE)
row("manage_gameobject", "set_transform", "local",
    {"target": "/ShapeProbe", "rotation": [0, 90, 0], "scale": [2, 2, 2]}, GOSHAPE)
row("manage_gameobject", "set_active", "off", {"target": "/ShapeProbe", "active": False}, GOSHAPE)
row("manage_gameobject", "set_active", "on", {"target": "/ShapeProbe", "active": True}, GOSHAPE)
row("manage_gameobject", "set_layer", "by index", {"target": "/ShapeProbe", "layer": 0}, GOSHAPE)
row("manage_gameobject", "set_tag", "untagged", {"target": "/ShapeProbe", "tag": "Untagged"},
    GOSHAPE)
row("manage_gameobject", "set_name", "rename", {"target": "/ShapeProbe", "name": "ShapeProbe2"},
    GOSHAPE)
row("manage_gameobject", "set_parent", "under player",
    {"target": "/ShapeProbe2", "parent": PLAYER}, GOSHAPE)
row("manage_gameobject", "duplicate", "two", {"target": "/Player/ShapeProbe2", "count": 2},
    {"source": {"instance_id": I, "name": S}, "count": I,
     "clones": [{"instance_id": I, "name": S, "path": S}]})
row("manage_gameobject", "destroy", "snapshot", {"target": "/Player/ShapeProbe2"}, GOSHAPE)

# ---- manage_components ----------------------------------------------------------------------
row("manage_components", "list", "player", {"path": PLAYER},
    {"instance_id": I, "components": [COMP]})
row("manage_components", "add", "light", {"path": PLAYER, "type": "Light"},
    {"instance_id": I, "component": COMP})
row("manage_components", "get", "all properties", {"path": PLAYER, "type": "Light"},
    {"instance_id": I, "component": COMP_PROPS}, "breaks")
row("manage_components", "get", "one scalar property",
    {"path": PLAYER, "type": "Light", "property": "m_Intensity"},
    {"instance_id": I, "component_id": I, "type": S, "property": S, "property_type": S,
     "value": N}, "breaks")
row("manage_components", "set", "scalar",
    {"path": PLAYER, "type": "Light", "property": "m_Intensity", "value": 2.5},
    {"instance_id": I, "component_id": I, "type": S, "property": S, "property_type": S,
     "value": N}, "breaks")
row("manage_components", "remove", "light", {"path": PLAYER, "type": "Light"},
    {"instance_id": I, "removed": COMP})

# ---- manage_editor --------------------------------------------------------------------------
row("manage_editor", "set_selection", "player", {"targets": [PLAYER]}, {"count": I})
row("manage_editor", "get_selection", "player", {},
    {"count": I, "active_instance_id": I,
     "objects": [{"instance_id": I, "name": S, "kind": S, "path": SN, "type": S,
                  "global_id?": S}]})
row("manage_editor", "get_tags_layers", "named", {},
    {"tags": [S], "layers": [{"index": I, "name": S}]})
row("manage_editor", "add_tag", "no data", {"tag_name": "ShapeTag"}, ABSENT)
row("manage_editor", "remove_tag", "no data", {"tag_name": "ShapeTag"}, ABSENT)
row("manage_editor", "add_layer", "no data", {"layer_name": "ShapeLayer"}, ABSENT)
row("manage_editor", "remove_layer", "no data", {"layer_name": "ShapeLayer"}, ABSENT)
row("manage_editor", "set_active_tool", "no data", {"tool_name": "move"}, ABSENT)
row("manage_editor", "focus", "window", {"type": "SceneView"}, {"type": S, "title": SN})

# ---- manage_assets --------------------------------------------------------------------------
row("manage_assets", "mkdir", "new", {"path": "Assets/Shapes"}, {"path": S, "created": B})
# `create` instantiates a ScriptableObject class into a `.asset` file (a Material is no
# ScriptableObject, so the handler cannot create one); the project's GameSettings is one.
row("manage_assets", "create", "scriptable object",
    {"path": "Assets/Shapes/Probe.asset", "type": "GameSettings"},
    {"path": S, "type": S, "guid": S})
row("manage_assets", "copy", "scriptable object",
    {"path": "Assets/Shapes/Probe.asset", "new_path": "Assets/Shapes/Probe2.asset"},
    {"path": S, "new_path": S})
row("manage_assets", "move", "scriptable object",
    {"path": "Assets/Shapes/Probe2.asset", "new_path": "Assets/Shapes/Probe3.asset"},
    {"path": S, "new_path": S})
row("manage_assets", "find", "materials", {"type": "Material"},
    {"query": S, "total": I, "returned": I, "truncated": B, "assets": [ASSET]})
row("manage_assets", "deps", "forward", {"path": SCENE, "direction": "forward"},
    {"path": S, "direction": S, "recursive": B, "total": I, "returned": I, "truncated": B,
     "assets": [ASSET]})
row("manage_assets", "deps", "reverse",
    {"path": "Assets/Materials/Player.mat", "direction": "reverse"},
    {"path": S, "direction": S, "scope": S, "total": I, "returned": I, "truncated": B,
     "scanned": I, "elapsed_ms": I, "assets": [ASSET]})
row("manage_assets", "import", "file from outside", {"path": "Assets/Shapes/in.txt",
                                                      "source": "$HOME/in.txt"},
    {"path": S, "source": S, "guid": S, "importer_type": S})
row("manage_assets", "delete", "scriptable object", {"path": "Assets/Shapes/Probe3.asset"},
    {"path": S})

# ---- manage_asset_import --------------------------------------------------------------------
row("manage_asset_import", "get", "all properties", {"path": "Assets/Textures/Grass.png"},
    {"path": S, "importer_type": S, "properties": {"*": SPVALUE}}, "breaks")
row("manage_asset_import", "get", "one scalar property",
    {"path": "Assets/Textures/Grass.png", "property": "m_MaxTextureSize"},
    {"path": S, "importer_type": S, "property": S, "property_type": S, "value": I}, "breaks")
row("manage_asset_import", "set", "scalar",
    {"path": "Assets/Textures/Grass.png", "property": "m_MaxTextureSize", "value": 1024},
    {"path": S, "importer_type": S, "property": S, "property_type": S, "value": I}, "breaks")

# ---- manage_material ------------------------------------------------------------------------
MAT = "Assets/Shapes/Probe.mat"
row("manage_material", "create", "standard", {"path": MAT, "shader": "Standard"},
    {"path": S, "shader": S, "property_count": I})
row("manage_material", "get", "all properties", {"path": MAT},
    {"path": S, "shader": S, "property_count": I, "truncated": B,
     "properties": [{"name": S, "type": S, "value": "any"}]}, "breaks")
row("manage_material", "get", "one float", {"path": MAT, "property": "_Glossiness"},
    {"path": S, "shader": S, "name": S, "type": SN, "value": N}, "breaks")
row("manage_material", "set", "float", {"path": MAT, "property": "_Glossiness", "value": 0.25},
    {"path": S, "name": S, "type": SN, "value": N}, "breaks")
row("manage_material", "set_shader", "unlit", {"path": MAT, "shader": "Unlit/Color"},
    {"path": S, "shader": S, "property_count": I})

# ---- manage_prefab --------------------------------------------------------------------------
PREFAB = "Assets/Prefabs/Player.prefab"
row("manage_gameobject", "create", "for prefab", {"name": "PrefabProbe"}, GOSHAPE)
row("manage_prefab", "create", "from scene object",
    {"source": "/PrefabProbe", "path": "Assets/Prefabs/Probe.prefab"},
    {"path": S, "root": S, "components": [S], "asset_type": S})
row("manage_prefab", "instantiate", "player", {"path": PREFAB},
    {"instance_id": I, "name": S, "path": S})
row("manage_prefab", "add_component", "asset edit",
    {"path": "Assets/Prefabs/Probe.prefab", "component": "BoxCollider"},
    {"path": S, "root": S, "component": S, "components": [S]})
row("manage_prefab", "remove_component", "asset edit",
    {"path": "Assets/Prefabs/Probe.prefab", "component": "BoxCollider"},
    {"path": S, "root": S, "component": S, "components": [S]})
OVR = [{"path": SN, "type": SN}]
row("manage_prefab", "list_overrides", "instance", {"target": PLAYER},
    {"instance_root": S, "asset_path": SN, "asset_type": S, "status": S, "has_overrides": B,
     "include_default": B, "object_overrides": OVR, "added_components": OVR,
     "removed_components": OVR, "added_gameobjects": [{"path": SN, "sibling_index": I}],
     "removed_gameobjects": [{"parent_path": SN, "name": SN}]})
row("manage_prefab", "apply", "instance", {"target": PLAYER},
    {"instance_root": S, "asset_path": SN, "has_overrides": B})
row("manage_prefab", "revert", "instance", {"target": PLAYER},
    {"instance_root": S, "asset_path": SN, "has_overrides": B})
row("manage_prefab", "unpack", "outermost", {"target": "/PrefabProbe", "mode": "outermost"},
    {"instance_root": S, "mode": S, "remaining_instance_roots": [S]})

# ---- manage_settings ------------------------------------------------------------------------
row("manage_settings", "get_audio", "", {},
    {"volume": N, "doppler_factor": N, "rolloff_scale": N})
# A null where the schema says string: agreement by the contract's rule (reference types may be
# null), but a strict validator rejects it.
row("manage_settings", "get_graphics", "built-in pipeline", {},
    {"render_pipeline_asset": SN, "render_pipeline_asset_path": SN,
     "using_scriptable_render_pipeline": B}, "breaks")
row("manage_settings", "get_input", "", {},
    {"total": I, "returned": I, "truncated": B,
     "axes": [{"name": S, "sensitivity": N, "gravity": N, "dead": N}]})
row("manage_settings", "get_lighting", "", {},
    {"available": B, "lightmapper": SN, "baked_gi": B, "realtime_gi": B,
     "direct_sample_count": I, "indirect_sample_count": I, "environment_sample_count": I,
     "bounces": I, "lightmap_resolution": N, "lightmap_padding": I, "max_lightmap_size": I,
     "lightmap_compression": SN, "directional_mode": SN, "ao": B, "ao_max_distance": N,
     "filtering_mode": SN})
row("manage_settings", "get_navmesh", "", {},
    {"available": B, "agent_radius": N, "agent_height": N, "agent_slope": N, "agent_climb": N,
     "min_region_area": N, "voxel_size": N, "manual_voxel_size": B})
row("manage_settings", "get_physics", "", {},
    {"gravity": [N, N, N], "default_solver_iterations": I,
     "default_solver_velocity_iterations": I, "bounce_threshold": N,
     "default_contact_offset": N, "sleep_threshold": N})
row("manage_settings", "get_player", "", {},
    {"company_name": S, "product_name": S, "bundle_version": S, "scripting_backend": S,
     "api_compatibility_level": S})
row("manage_settings", "get_quality", "", {},
    {"level": I, "level_name": SN, "names": [S], "vsync_count": I, "anti_aliasing": I})
row("manage_settings", "get_time", "", {},
    {"fixed_delta_time": N, "maximum_delta_time": N, "time_scale": N})


def set_result(applied, extra=None):
    shape = {"applied": applied, "skipped": {"*": S}, "dry_run": B}
    shape.update(extra or {})
    return shape


row("manage_settings", "set_audio", "numbers", {"volume": 0.5, "dry_run": True},
    set_result({"volume": N}), "breaks")
row("manage_settings", "set_graphics", "clear to null",
    {"render_pipeline_asset": "", "dry_run": True},
    set_result({"render_pipeline_asset": SN}), "breaks")
row("manage_settings", "set_input", "numbers",
    {"axis": "Horizontal", "sensitivity": 2.0, "dry_run": True},
    set_result({"sensitivity": N}), "breaks")
row("manage_settings", "set_lighting", "mixed",
    {"baked_gi": True, "bounces": 3, "dry_run": True},
    set_result({"baked_gi": B, "bounces": I}), "breaks")
row("manage_settings", "set_navmesh", "numbers", {"agent_radius": 0.6, "dry_run": True},
    set_result({"agent_radius": N}), "breaks")
row("manage_settings", "set_physics", "gravity array",
    {"gravity": [0, -9.81, 0], "dry_run": True},
    set_result({"gravity": [N, N, N]}), "breaks")
row("manage_settings", "set_player", "strings", {"company_name": "Shapes", "dry_run": True},
    set_result({"company_name": S}, {"build_target": S, "recompile_triggered": B}), "breaks")
row("manage_settings", "set_quality", "integers", {"vsync_count": 1, "dry_run": True},
    set_result({"vsync_count": I}), "breaks")
row("manage_settings", "set_time", "numbers", {"time_scale": 1.0, "dry_run": True},
    set_result({"time_scale": N}), "breaks")

# ---- manage_animation -----------------------------------------------------------------------
CTRL = "Assets/Shapes/Probe.controller"
CLIP = "Assets/Shapes/Probe.anim"
row("manage_animation", "create_clip", "", {"path": CLIP},
    {"path": S, "guid": S, "frame_rate": N, "loop": B})
row("manage_animation", "set_curve", "x",
    {"path": CLIP, "type": "Transform", "property": "localPosition.x",
     "keys": [{"time": 0, "value": 0}, {"time": 1, "value": 1}]},
    {"path": S, "relative_path": S, "type": S, "property": S, "keys": I, "total_bindings": I})
row("manage_animation", "get_clip", "with keys", {"path": CLIP, "include_keys": True},
    {"path": S, "guid": S, "frame_rate": N, "loop": B, "length": N,
     "bindings": [{"relative_path": S, "type": SN, "property": S, "keys": I,
                   "keyframes?": [{"time": N, "value": N, "in_tangent": N, "out_tangent": N}]}]})
row("manage_animation", "remove_curve", "x",
    {"path": CLIP, "type": "Transform", "property": "localPosition.x"},
    {"path": S, "relative_path": S, "type": S, "property": S, "keys_removed": I,
     "total_bindings": I})
row("manage_animation", "create_controller", "", {"path": CTRL},
    {"path": S, "guid": S, "layers": I})
row("manage_animation", "add_parameter", "float",
    {"path": CTRL, "name": "Speed", "type": "float"},
    {"path": S, "name": S, "type": S, "parameters": I})
row("manage_animation", "add_layer", "", {"path": CTRL, "name": "Upper"},
    {"path": S, "name": S, "index": I, "weight": N, "blending": S, "layers": I})
# A state without a motion reports `motion: null` where the schema says string.
row("manage_animation", "add_state", "idle", {"path": CTRL, "name": "Idle"},
    {"path": S, "name": S, "motion": SN, "is_default": B, "states": I}, "breaks")
row("manage_animation", "add_state", "run", {"path": CTRL, "name": "Run", "motion": CLIP},
    {"path": S, "name": S, "motion": SN, "is_default": B, "states": I})
COND = [{"parameter": S, "mode": S, "threshold": N}]
row("manage_animation", "add_transition", "with condition",
    {"path": CTRL, "from": "Idle", "to": "Run",
     "conditions": [{"parameter": "Speed", "mode": "greater", "threshold": 0.1}]},
    {"path": S, "from": S, "to": S, "has_exit_time": B, "conditions": COND})
row("manage_animation", "get_controller", "", {"path": CTRL},
    {"path": S, "guid": S,
     "parameters": [{"name": S, "type": S, "default": "number|boolean|null"}],
     "layers": [{"name": S, "weight": N, "blending": S,
                 "states": [{"name": S, "motion": SN, "is_default": B,
                             "transitions": [{"to": SN, "has_exit_time": B, "duration": N,
                                              "conditions": COND}]}]}]})

# ---- manage_timeline ------------------------------------------------------------------------
TL = "Assets/Shapes/Probe.playable"
row("manage_timeline", "create", "", {"path": TL},
    {"path": S, "guid": S, "frame_rate": N, "duration": N})
# A top-level track has a null parent, a clip without a source a null asset: nulls where the
# schema says string (allowed by the contract's rule, rejected by a strict validator).
row("manage_timeline", "add_track", "animation", {"path": TL, "type": "Animation", "name": "Anim"},
    {"path": S, "name": S, "type": S, "parent": SN, "index": I}, "breaks")
row("manage_timeline", "add_clip", "", {"path": TL, "track": "Anim", "start": 0, "duration": 1.5},
    {"path": S, "track": S, "name": SN, "start": N, "duration": N, "asset": SN}, "breaks")
row("manage_timeline", "get", "", {"path": TL},
    {"path": S, "guid": S, "frame_rate": N, "duration": N,
     "tracks": [{"name": S, "type": S, "parent": SN, "muted": B, "locked": B,
                 "clips": [{"name": SN, "start": N, "duration": N, "asset": SN}]}],
     "returned": I, "truncated": B})

# ---- manage_ui ------------------------------------------------------------------------------
row("manage_ui", "create", "button inside a new canvas", {"element": "button", "name": "Go"},
    {"instance_id": I, "name": S, "path": S, "scene": S, "components": [S], "created": [S],
     "rect": {"$or": [RECT, "null"]}})
row("manage_ui", "get_rect", "", {"path": "/Canvas/Go"}, RECT)
row("manage_ui", "set_anchor", "preset", {"path": "/Canvas/Go", "preset": "top-left"}, RECT)
row("manage_ui", "set_rect", "size", {"path": "/Canvas/Go", "size_delta": [200, 50]}, RECT)

# ---- input (play mode) ----------------------------------------------------------------------
row("manage_editor", "play", "no data", {}, ABSENT)
row("manage_editor", "pause", "no data", {}, ABSENT)
row("input", "state", "eventsystem", {},
    {"backend": S, "evidence_level": S, "event_system": EVSYS,
     "raycasters": [{"instance_id": I, "path": S, "type": S, "active": B}],
     "raycasters_total": I, "raycasters_truncated": B, "inputsystem": {"available": B},
     "native_win32": {"available": B, "implemented": B}})
row("input", "state", "inputsystem", {"backend": "inputsystem"},
    {"backend": S, "evidence_level": S, "available": B, "ready": B, "reason": SN,
     "package_version": SN, "play_mode": B, "paused": B, "keyboard": DEV, "mouse": DEV,
     "injected": HELD})
row("input", "inspect", "compact", {"target": "/Canvas/Go"},
    {"backend": S, "evidence_level": S, "target_id": I, "target_path": S,
     "target_destroyed": B, "point": POINT2, "target_hit": B, "target_top_hit": B,
     "blocked_by": SN, "interactable": B, "not_interactable_reason": SN})
for act in ("click", "pointer_down", "pointer_up", "submit"):
    row("input", act, "", {"target": "/Canvas/Go"}, ACTION_ES)
# A Button handles neither scroll nor drag, so strict (the default) would fail these calls.
row("input", "scroll", "", {"target": "/Canvas/Go", "strict": False}, ACTION_ES)
row("input", "drag", "", {"target": "/Canvas/Go", "to_position": "10,10", "strict": False},
    ACTION_ES)
row("input", "keyboard", "press", {"key": "space"},
    {"backend": S, "evidence_level": S, "action": S, "mode": S, "key": S, "pressed_after": B,
     "held_by_hera": B})
row("input", "mouse", "move", {"mode": "move", "position": "5,5"},
    {"backend": S, "evidence_level": S, "action": S, "mode": S, "button": SN,
     "position": {"$or": [POINT2, "null"]}, "delta": {"$or": [POINT2, "null"]},
     "scroll": {"$or": [POINT2, "null"]}, "pressed_after": "boolean|null", "held_by_hera": B})
row("input", "sequence", "one key",
    {"steps": [{"action": "keyboard", "key": "space"}]}, SEQ_RESULT)
row("input", "record", "start", {"mode": "start", "path": "Assets/Shapes/rec.json"},
    RECORD_STATUS)
row("input", "record", "stop", {"mode": "stop"},
    {"schema": S, "path": S, "event_count": I, "total_frames": I, "bytes": I, "stop_reason": S})
row("input", "record", "status idle", {"mode": "status"},
    {"schema": S, "active": B, "pending_save": B})
row("input", "replay", "recording", {"path": "Assets/Shapes/rec.json"}, SEQ_RESULT)
row("manage_editor", "stop", "no data", {}, ABSENT)

# ---- profiler -------------------------------------------------------------------------------
row("profiler", "enable", "no data", {}, ABSENT)
row("profiler", "status", "camelCase", {},
    {"enabled": B, "firstFrame": I, "lastFrame": I, "frameCount": I, "isPlaying": B})
HIER = {"frame": I, "threadIndex": I, "parent": I, "parentName": S, "depth": I,
        "children": [PROFILER_ITEM]}
row("profiler", "hierarchy", "single frame", {"$advance_ms": 1000}, HIER)
row("profiler", "-", "default action", {}, HIER)
row("profiler", "hierarchy", "averaged", {"frames": 5},
    {"frameCount": I, "threadIndex": I, "root": S,
     "items": [{"name": S, "avgTotalMs": N, "avgSelfMs": N, "avgCalls": N, "appearedIn": I}]})
row("profiler", "stats", "", {},
    {"is_playing": B, "render_available": B,
     "render?": {"draw_calls": I, "set_pass_calls": I, "batches": I, "triangles": I,
                 "vertices": I, "shadow_casters": I, "frame_time_ms": N, "render_time_ms": N,
                 "screen_res": SN},
     "memory": {"total_allocated_bytes": I, "total_reserved_bytes": I, "mono_used_bytes": I,
                "mono_heap_bytes": I, "graphics_driver_bytes": I}})
row("profiler", "disable", "no data", {}, ABSENT)
row("profiler", "clear", "no data", {}, ABSENT)

# ---- bake -----------------------------------------------------------------------------------
# The test opens the project with com.unity.ai.navigation installed, so a surface can be added.
row("manage_gameobject", "create", "for a surface", {"name": "NavProbe"}, GOSHAPE)
row("manage_components", "add", "surface", {"path": "NavProbe", "type": "NavMeshSurface"},
    {"instance_id": I, "component": COMP})
row("bake", "status", "lighting idle", {"area": "lighting"},
    {"area": S, "state": S, "has_baked_data": B, "progress?": N})
row("bake", "status", "occlusion", {"area": "occlusion"},
    {"area": S, "state": S, "has_baked_data": B, "data_size_bytes?": I})
row("bake", "start", "lighting", {"area": "lighting"},
    {"area": S, "started": B, "lighting_workflow_mode": S})
row("bake", "cancel", "lighting", {"area": "lighting"}, {"area": S, "was_baking": B})
row("bake", "start", "navmesh", {"area": "navmesh"}, {"area": S, "started": B})
row("bake", "clear", "navmesh", {"area": "navmesh"}, {"area": S, "cleared": B})
row("bake", "start", "surfaces", {"area": "navmesh_surfaces"},
    {"area": S, "started": B, "surfaces": I})
row("bake", "status", "surfaces", {"area": "navmesh_surfaces"},
    {"area": S, "state": S, "surfaces": I, "baking": I, "with_data": I})
row("bake", "clear", "surfaces", {"area": "navmesh_surfaces"},
    {"area": S, "cleared": B, "surfaces": I})

# ---- build ----------------------------------------------------------------------------------
BSCENES = [{"path": S, "enabled": B}]
row("build", "get_settings", "", {},
    {"active_target": S, "target_group": S, "development": B, "allow_debugging": B,
     "build_scripts_only": B, "scenes": BSCENES})
row("build", "list_targets", "", {}, {"targets": [{"name": S, "group": S, "installed": B}]})
row("build", "set_settings", "dry run", {"development": True, "dry_run": True},
    {"applied": {"*": B}, "dry_run": B})
row("build", "add_scene", "", {"path": "Assets/Scenes/Extra.unity"}, {"scenes": BSCENES})
row("build", "remove_scene", "", {"path": "Assets/Scenes/Extra.unity"}, {"scenes": BSCENES})
row("build", "status", "idle", {}, {"state": S, "last_report": "object|null"}, "breaks")
row("build", "start", "queued", {}, {"queued": B, "target": S, "output_path": S, "port": I})

# ---- tool-level tools -----------------------------------------------------------------------
row("console", "-", "read", {"lines": 5},
    {"entries": [S], "total_in_console": I, "matched": I, "returned": I, "since": I,
     "last_cursor": I, "truncated": B})
row("describe_shader", "-", "list", {"list": True}, {"total": I, "truncated": B, "shaders": [S]})
row("describe_shader", "-", "describe", {"name": "Standard"},
    {"name": S, "property_count": I, "truncated": B,
     "properties": [{"name": S, "type": S, "display?": S, "range?": [N, N]}]})
row("describe_type", "-", "transform", {"type": "UnityEngine.Transform"},
    {"name": S, "full_name": S, "namespace": SN, "assembly": S, "kind": S, "is_static": B,
     "base_type": SN, "interfaces": [S], "methods": {"$or": [MEMBERS, "null"]},
     "properties": {"$or": [MEMBERS, "null"]}, "fields": {"$or": [MEMBERS, "null"]},
     "events": {"$or": [MEMBERS, "null"]},
     "pitfalls": {"$or": [[{"text": S, "doc_url": SN}], "null"]}})
row("detect_assets", "-", "", {},
    {"project_path": S, "detected": [{"id": S, "installed": B, "path": SN}], "config_path": S})
row("exec", "-", "scalar return", {"code": "return 1 + 1;"}, I, "breaks")
row("find_gameobjects", "-", "default", {},
    {"total": I, "returned": I, "offset": I, "limit": I, "has_more": B,
     "results": [{"instance_id": I, "name": S}]})
row("find_gameobjects", "-", "fields all", {"fields": "all"},
    {"total": I, "returned": I, "offset": I, "limit": I, "has_more": B,
     "results": [{"instance_id": I, "name": S, "path": S, "scene": S, "active": B}]})
row("find_gameobjects", "-", "ids", {"ids": True},
    {"total": I, "returned": I, "offset": I, "limit": I, "has_more": B, "results": [I]},
    "breaks")
row("find_gameobjects", "-", "names", {"names": True},
    {"total": I, "returned": I, "offset": I, "limit": I, "has_more": B, "results": [S]},
    "breaks")
row("find_method", "-", "grouped", {"pattern": "Move"},
    {"total": I, "truncated": B, "results": [{"type": S, "assembly": S, "methods": [S]}]})
row("find_method", "-", "flat", {"pattern": "Move", "group_by_type": False},
    {"total": I, "truncated": B,
     "results": [{"declaring_type": S, "assembly": S, "signature": S}]})
row("game_feel", "-", "index", {},
    {"topics": [{"category": S, "topics": [{"key": S, "title": S}]}]})
row("list_assemblies", "-", "names", {}, {"count": I, "assemblies": [S]})
row("list_assemblies", "-", "with versions", {"include_version": True},
    {"count": I, "assemblies": [{"name": S, "version": SN}]}, "breaks")
row("log", "-", "", {"message": "payload shapes"}, {"message": S, "level": S})
row("menu", "list", "groups", {}, {"total": I, "groups": [{"name": S, "count": I}]})
row("menu", "list", "filtered", {"filter": "GameObject"},
    {"filter": S, "total": I, "returned": I, "truncated": B, "items": [S]})
row("menu", "-", "execute", {"menu_path": "GameObject/Create Empty"}, ABSENT)
row("refresh_unity", "-", "", {},
    {"refresh_triggered": B, "compile_requested": B, "force": B})
row("reserialize", "-", "paths", {"paths": [SCENE]}, {"paths": [S]})
row("screenshot", "-", "plain", {}, {"path": S, "width": I, "height": I})
row("ui_slop", "-", "index", {},
    {"areas": [{"area": S, "tells": [{"id": S, "severity": S, "tell": S}]}]})
row("unity_docs", "-", "", {"query": "Transform.Translate"},
    {"title": S, "signature": SN, "summary": S, "unity_version": S, "docs_version": S})

# ---- packages and tests ---------------------------------------------------------------------
row("manage_packages", "list", "", {}, {"packages": [PKG]})
row("manage_packages", "search", "", {"filter": "navigation"},
    {"filter": S, "total": I, "returned": I, "truncated": B,
     "packages": [{"name": S, "version": S, "display_name": S, "description": SN,
                   "compatible_versions": [S], "recommended": S, "deprecated": B}]})
JOB = {"job_id": S, "port": I, "action": S, "identifier": S}
row("run_tests", "list", "counts", {},
    {"mode": S, "total": I, "assemblies": [{"name": S, "tests": I}],
     "categories": [{"name": S, "tests": I}]})
row("run_tests", "list", "selector", {"filter": "Player"},
    {"mode": S, "total": I, "returned": I, "truncated": B,
     "tests": [{"full_name": S, "assembly": S, "categories": [S]}]})
row("run_tests", "-", "sync EditMode", {"mode": "EditMode"},
    {"total": I, "passed": I, "failed": I, "skipped": I, "failures": [S], "passes": [S]})
row("run_tests", "-", "async", {"mode": "EditMode", "async_results": True},
    {"port": I, "run_id": S})
row("run_tests", "cancel", "running", {},
    {"$or": [{"was_running": B},
             {"was_running": B, "run_ids": [S], "nunit_cancel_requested": B}]})
row("console", "-", "clear", {"clear": True}, ABSENT)
row("reserialize", "-", "whole project", {}, ABSENT)
# Last: a finished package job reloads the domain.
row("manage_packages", "add", "", {"identifier": "com.unity.cinemachine"}, JOB)
row("manage_packages", "embed", "", {"identifier": "com.unity.test-framework"}, JOB)
row("manage_packages", "remove", "", {"identifier": "com.unity.ide.rider"}, JOB)


def render():
    lines = ["# generated by connector-contract/vectors/derive/payload_shapes.py from the "
             "handlers' payloads as connector-contract/README.md (Payload shapes) describes them; do not edit",
             "tool\taction\tcase\targs\tshape\tfit\tverdict"]
    for tool, action, case, args, shape, fit in ROWS:
        cells = [tool, action, case or "-", json.dumps(args, separators=(",", ":")),
                 json.dumps(shape, separators=(",", ":")), fit, verdict(tool, action)]
        assert all("\t" not in c and "\n" not in c for c in cells)
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def main():
    text = render()
    if "--check" in sys.argv:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(f"{OUT} is stale; run {sys.argv[0]}")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
