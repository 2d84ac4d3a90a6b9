package audit

import (
	"errors"
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// TargetSource says where the vehicle an audit checks the action trail
// against came from.
type TargetSource string

// Target sources, in the order they are tried.
const (
	// TargetGiven: the host named it (decision_node's --target-vehicle).
	TargetGiven TargetSource = "given"
	// TargetFromReceipts: the vehicle the recording's first action receipt
	// names, the one its host commanded.
	TargetFromReceipts TargetSource = "receipts"
	// TargetFromConfig: the recording holds no receipt; the host's
	// configuration names it (executors.target_vehicle).
	TargetFromConfig TargetSource = "config"
	// TargetDefault: the recording holds no receipt and nothing names a
	// vehicle: 1, PX4's default MAV_SYS_ID.
	TargetDefault TargetSource = "default"
)

// DefaultTargetVehicle is the target vehicle when nothing names one, and
// MaxTargetVehicle the largest a receipt may name (MAVLink system ids are
// 1 to 255).
const (
	DefaultTargetVehicle = 1
	MaxTargetVehicle     = 255
)

// Target is the vehicle an audit checks receipts and evidence against, and
// where it came from.
type Target struct {
	Vehicle uint32       `json:"vehicle"`
	From    TargetSource `json:"from,omitempty"`
}

// ChooseTarget picks the target vehicle of an audit of the recording made
// of files (one MCAP file, or a rosbag2 bag's files in recording order):
// given when it is not 0, else the vehicle of the recording's first receipt
// on actionsTopic (RecordedVehicle), else fallback. A recording that stops
// at damage before its first receipt holds none. Receipts naming other
// vehicles later in the recording are not looked for here: the audit
// checks each against the target chosen.
func ChooseTarget(given uint32, files []string, actionsTopic string, fallback Target) (Target, error) {
	if given != 0 {
		return Target{Vehicle: given, From: TargetGiven}, nil
	}
	v, ok, err := RecordedVehicle(files, actionsTopic)
	switch {
	case errors.Is(err, bag.ErrTruncated):
		return fallback, nil
	case err != nil:
		return Target{}, err
	case ok:
		return Target{Vehicle: v, From: TargetFromReceipts}, nil
	}
	return fallback, nil
}

// RecordedVehicle returns the vehicle the first action receipt on topic
// names in the recording made of files, in recording order: the first
// receipt by log time of the first file that holds one. ok is false when
// none does; a first receipt that does not decode, or names no system id,
// is an error. Each file is read only as far as bag.FirstMessage needs; a
// file that stops at damage before a receipt ends the search with its
// error (a *bag.TruncatedError), as it ends the audit's read.
func RecordedVehicle(files []string, topic string) (vehicle uint32, ok bool, err error) {
	opts := bag.ReaderOptions{Schemas: map[string]string{topic: (*ros2msg.ActionReceipt)(nil).SchemaName()}}
	for _, f := range files {
		m, found, err := bag.FirstMessage(f, topic, opts)
		if err != nil {
			return 0, false, fmt.Errorf("the recording's first receipt: %w", err)
		}
		if !found {
			continue
		}
		var rc ros2msg.ActionReceipt
		if err := rc.UnmarshalCDR(m.Data); err != nil {
			return 0, false, fmt.Errorf("%s: the first receipt on %s (log time %d) does not decode: %w", f, topic, m.LogTime, err)
		}
		if rc.VehicleID < 1 || rc.VehicleID > MaxTargetVehicle {
			return 0, false, fmt.Errorf("%s: the first receipt on %s (log time %d) names vehicle %d, not a system id (1 to %d)",
				f, topic, m.LogTime, rc.VehicleID, MaxTargetVehicle)
		}
		return rc.VehicleID, true, nil
	}
	return 0, false, nil
}
