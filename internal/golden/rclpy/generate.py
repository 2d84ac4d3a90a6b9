#!/usr/bin/env python3
"""Writes CDR vectors of the ghost message types the shared golden set lacks.

The bytes come from ROS 2 itself: rclpy's serialize_message, through the
type support colcon builds from msg/ (rmw_cyclonedds_cpp). The JSON follows
the shared golden format (shared/golden/cdr/README.md): fields in .msg order,
int64/uint64 as decimal strings, NaN, +-Infinity and -0.0 as strings.

Run with ROS 2 Humble and the ghost package sourced:

    python3 generate.py OUTDIR

It writes OUTDIR/<Type>.jsonl for every type in TYPES.
"""

import json
import math
import os
import sys

import numpy
from rclpy.serialization import serialize_message

from ghost.msg import (ActionEvidence, ActionEvidenceItem, ActionReceipt,
                       AssessmentThresholds, BeliefSelfAssessment,
                       CalibratedSelfAssessment, CalibrationHistory,
                       RecordingSeal, RecordingSealTopic)

I64_MAX, I64_MIN, U64_MAX, U32_MAX = 2**63 - 1, -2**63, 2**64 - 1, 2**32 - 1
NAN, INF = float("nan"), float("inf")


def item(kind=0, action_id=0, executor_id="", vehicle_id=0, command=0, result=0, mode=0, armed=False, time_us=0):
    return ActionEvidenceItem(kind=kind, action_id=action_id, executor_id=executor_id, vehicle_id=vehicle_id,
                              command=command, result=result, mode=mode, armed=armed, vehicle_time_us=time_us)


def history(n=0, within=0, b1=0, b3=0, b5=0, wp=0.0, wo=0.0, stamp=0, version=1):
    return CalibrationHistory(outcomes_considered=n, count_within_1_std=within, count_beyond_1_std=b1,
                              count_beyond_3_std=b3, count_beyond_5_std=b5, worst_position_mahalanobis=wp,
                              worst_orientation_mahalanobis=wo, most_recent_observed_stamp_sim_ns=stamp,
                              schema_version=version)


def assessment(stamp, std, levels, sha):
    a = BeliefSelfAssessment(belief_stamp_sim_ns=stamp, thresholds_sha256=sha, covariance_available=True)
    names = ["position_axis_x_std_m", "position_axis_y_std_m", "position_axis_z_std_m",
             "velocity_axis_x_std_mps", "velocity_axis_y_std_mps", "velocity_axis_z_std_mps",
             "orientation_axis_x_std_rad", "orientation_axis_y_std_rad", "orientation_axis_z_std_rad"]
    for name, v in zip(names, std):
        setattr(a, name, v)
    level_names = [n for n in a.get_fields_and_field_types() if n.endswith("_level")]
    for name, v in zip(level_names, levels):
        setattr(a, name, v)
    a.thresholds_used = AssessmentThresholds(position_known_std_m=0.5, position_unknown_std_m=5.0,
                                             velocity_known_std_mps=0.2, velocity_unknown_std_mps=2.0,
                                             orientation_known_std_rad=0.05, orientation_unknown_std_rad=0.5)
    return a


HASH = "7dec64eee96396a3f6603decde908725719132a972e78158809927bb043ebd0d"


def octets(n, start=0):
    return numpy.array([(start + i) % 256 for i in range(n)], dtype=numpy.uint8)


def seal_topic(topic="", typ="", n=0, first=0, chain=0):
    return RecordingSealTopic(topic=topic, type=typ, message_count=n, first_sha256=octets(32, first),
                              chain_sha256=octets(32, chain))

TYPES = {
    "ActionEvidenceItem": [
        item(),
        item(kind=2, action_id=7, executor_id="px4", vehicle_id=1, command=20, result=0, mode=5, armed=True,
             time_us=123456789),
        item(kind=255, action_id=U64_MAX, executor_id="exécuteur ✈", vehicle_id=U32_MAX, command=U32_MAX,
             result=255, mode=255, armed=True, time_us=U64_MAX),
    ],
    "ActionEvidence": [
        ActionEvidence(),
        ActionEvidence(items=[item(kind=1, action_id=3, executor_id="px4", command=176, result=4, time_us=9)]),
        ActionEvidence(items=[item(kind=k, action_id=k, executor_id="x" * k, vehicle_id=k, armed=k % 2 == 1)
                              for k in range(5)]),
    ],
    "ActionReceipt": [
        ActionReceipt(),
        ActionReceipt(action_id=1, decision_stamp_sim_ns=1_000_000_000, kind=3, executor_id="px4", vehicle_id=1,
                      event=5, attempt=1, command=20, params=numpy.array([0.0, 1.5, -2.25, NAN, INF, -INF, -0.0]),
                      failure=0, evidence=[item(kind=2, action_id=1, executor_id="px4", command=20, result=0)],
                      detail="reached: nav_state 5", time_ns=I64_MAX),
        ActionReceipt(action_id=U64_MAX, decision_stamp_sim_ns=I64_MIN, kind=255, executor_id="", vehicle_id=U32_MAX,
                      event=255, attempt=255, command=U32_MAX, params=numpy.array([5e-324, 1.7976931348623157e308,
                                                                                   -1.0, 0.1, 1e-300, 3.0, 2.0]),
                      failure=4, evidence=[item(), item(kind=1, executor_id="ü")], detail="dénié\n\"quoted\"",
                      time_ns=-1, schema_version=0),
    ],
    "RecordingSealTopic": [
        RecordingSealTopic(),
        seal_topic("/state/nav", "ghost/msg/VehicleState", 50, 1, 33),
        seal_topic("/ü" * 3, "", U64_MAX, 255, 128),
    ],
    "RecordingSeal": [
        RecordingSeal(),
        RecordingSeal(key_id="0123456789abcdef", seal_index=7, final_seal=True, first_sequence=350,
                      last_sequence=399, message_count=50, first_time_ns=1_000_000_000, last_time_ns=1_980_000_000,
                      seal_time_ns=2_000_000_000, previous_sha256=octets(32, 7), chain_sha256=octets(32, 9),
                      topics=[seal_topic("/decisions", "ghost/msg/DecisionRationale", 25, 3, 4),
                              seal_topic("/state/nav", "ghost/msg/VehicleState", 25, 5, 6)],
                      signature=octets(64, 200)),
        RecordingSeal(version=0, key_id="", seal_index=U64_MAX, final_seal=False, first_sequence=U64_MAX,
                      last_sequence=0, message_count=U64_MAX, first_time_ns=I64_MIN, last_time_ns=I64_MAX,
                      seal_time_ns=-1, topics=[RecordingSealTopic()], signature=octets(64, 255)),
    ],
    "CalibrationHistory": [
        history(version=0),
        history(n=100, within=68, b1=27, b3=4, b5=1, wp=3.5, wo=0.25, stamp=42_000_000_000),
        history(n=I64_MAX, within=I64_MIN, b1=-1, b3=1, b5=0, wp=NAN, wo=-INF, stamp=I64_MIN, version=255),
        history(wp=-0.0, wo=5e-324),
    ],
    "CalibratedSelfAssessment": [
        CalibratedSelfAssessment(),
        CalibratedSelfAssessment(
            raw_assessment=assessment(5_000_000_000, [0.1, 0.1, 0.3, 0.01, 0.01, 0.02, 0.001, 0.001, 0.004],
                                      [0] * 9 + [0, 0, 0, 0], HASH),
            adjusted_overall_level=1, adjustment_policy_id="ewma_calibration_v1",
            adjustment_reason="beyond_3_std", calibration_history=history(n=20, within=12, b1=5, b3=3, wp=4.5,
                                                                          wo=1.0, stamp=4_900_000_000)),
        CalibratedSelfAssessment(
            raw_assessment=assessment(I64_MAX, [NAN, INF, -0.0, 0.0, 5e-324, 1e300, 2.0, 3.0, 4.0],
                                      [2, 1, 0, 255, 2, 1, 0, 2, 1, 2, 2, 2, 2], "A" * 64),
            adjusted_overall_level=255, adjustment_policy_id="", adjustment_reason="ÿ",
            calibration_history=history(version=255), schema_version=0),
    ],
}

INT_STRINGS = {"int64", "uint64"}


def jsonable(m):
    out = {}
    for name, typ in m.get_fields_and_field_types().items():
        out[name] = value(getattr(m, name), typ)
    return out


def value(v, typ):
    base = typ.split("[")[0].split("<")[0]
    if "[" in typ or typ.startswith("sequence<"):
        return [value(x, base) for x in v]
    if base in INT_STRINGS:
        return str(int(v))
    if base == "double":
        return double(float(v))
    if base in ("boolean",):
        return bool(v)
    if base in ("octet", "uint8", "int8", "uint16", "int16", "uint32", "int32", "char", "byte"):
        return int(v)
    if base == "string":
        return v
    if hasattr(v, "get_fields_and_field_types"):
        return jsonable(v)
    raise TypeError(f"unhandled field type {typ}")


def double(f):
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    if f == 0.0 and math.copysign(1.0, f) < 0:
        return "-0.0"
    return f


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, msgs in TYPES.items():
        with open(os.path.join(outdir, name + ".jsonl"), "w", encoding="utf-8") as f:
            for m in msgs:
                line = {"type": "ghost/msg/" + name, "message": jsonable(m), "cdr_hex": serialize_message(m).hex()}
                f.write(json.dumps(line, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
