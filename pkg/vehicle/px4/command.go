package px4

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// decodeWith decodes a payload of message and extracts it.
func decodeWith[T any](d *Definitions, message string, data []byte, extract func(Fields) (T, error)) (T, error) {
	var m dynamic.Message
	if err := d.DecodeInto(message, &m, data); err != nil {
		var zero T
		return zero, err
	}
	return extract(FieldsOf(&m))
}

// Status decodes and extracts a VehicleStatus payload.
func (d *Definitions) Status(data []byte) (Status, error) {
	return decodeWith(d, MsgVehicleStatus, data, func(f Fields) (Status, error) { return ExtractStatus(f, d.release) })
}

// Command decodes and extracts a VehicleCommand payload.
func (d *Definitions) Command(data []byte) (Command, error) {
	return decodeWith(d, MsgVehicleCommand, data, ExtractCommand)
}

// CommandAck decodes and extracts a VehicleCommandAck payload.
func (d *Definitions) CommandAck(data []byte) (CommandAck, error) {
	return decodeWith(d, MsgVehicleCommandAck, data, ExtractCommandAck)
}

// EncodeCommand serializes c as a VehicleCommand of the definitions'
// release (CDR, encapsulation header included), field by name from the
// loaded definition. A value that does not fit the release's field (a
// SourceComponent above 255 on 1.14) is an error, never truncated.
func (d *Definitions) EncodeCommand(c Command) ([]byte, error) {
	p, err := d.Plan(MsgVehicleCommand)
	if err != nil {
		return nil, err
	}
	w, err := p.NewWriter()
	if err != nil {
		return nil, fmt.Errorf("px4: encode %s: %w", MsgVehicleCommand, err)
	}
	set := []error{
		w.SetUint("timestamp", c.TimestampUs),
		w.SetFloat("param1", float64(c.Param1)),
		w.SetFloat("param2", float64(c.Param2)),
		w.SetFloat("param3", float64(c.Param3)),
		w.SetFloat("param4", float64(c.Param4)),
		w.SetFloat("param5", c.Param5),
		w.SetFloat("param6", c.Param6),
		w.SetFloat("param7", float64(c.Param7)),
		w.SetUint("command", uint64(c.Command)),
		w.SetUint("target_system", uint64(c.TargetSystem)),
		w.SetUint("target_component", uint64(c.TargetComponent)),
		w.SetUint("source_system", uint64(c.SourceSystem)),
		w.SetUint("source_component", uint64(c.SourceComponent)),
		w.SetUint("confirmation", uint64(c.Confirmation)),
		w.SetBool("from_external", c.FromExternal),
	}
	for _, err := range set {
		if err != nil {
			return nil, fmt.Errorf("px4: encode %s for release %s: %w", MsgVehicleCommand, d.release, err)
		}
	}
	return w.Bytes(), nil
}
