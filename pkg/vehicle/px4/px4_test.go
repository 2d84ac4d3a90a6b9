package px4

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// The fixtures, written from each release branch's definitions, give the
// sizes this package's table states (computed separately from the
// research notes' field lists).
func TestFixtureSizesMatchTable(t *testing.T) {
	for _, rel := range Releases() {
		d := fixtureDefs(t, rel)
		for _, m := range Messages() {
			p, err := d.Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			got, fixed := p.FixedSize()
			want, _ := ExpectedSize(m, rel)
			if !fixed || got != want {
				t.Errorf("%s %s: fixture size %d (fixed %v), table %d", rel, m, got, fixed, want)
			}
		}
	}
}

// Every field of every message of every release survives encoding (by the
// test encoder) and decoding (by name, through the definition).
func TestDecodeEveryFieldEveryRelease(t *testing.T) {
	for _, rel := range Releases() {
		d := fixtureDefs(t, rel)
		for _, name := range Messages() {
			spec, _ := d.Spec(name)
			m, err := d.Decode(name, encodeMessage(t, d, name, nil))
			if err != nil {
				t.Fatalf("%s %s: %v", rel, name, err)
			}
			for _, f := range spec.Fields {
				n := max(f.ArrayLen, 1)
				for i := range n {
					path := f.Name
					if f.ArrayLen > 0 {
						path += "[" + strconv.Itoa(i) + "]"
					}
					checkField(t, &m, f.Type.Name, path, rel)
				}
			}
		}
	}
}

func checkField(t *testing.T, m *dynamic.Message, typ, path string, rel Release) {
	t.Helper()
	want := testValue(typ, path)
	var got any
	var err error
	switch typ {
	case "bool":
		got, err = m.Bool(path)
	case "float32":
		var v float64
		v, err = m.Float64(path)
		got = float32(v)
	case "float64":
		got, err = m.Float64(path)
	case "int8", "int16", "int32", "int64":
		got, err = m.Int(path)
	default:
		got, err = m.Uint(path)
	}
	if err != nil || got != want {
		t.Errorf("%s %s.%s = %v, %v; want %v", rel, m.Plan().Name(), path, got, err, want)
	}
}

func TestExtractEveryRelease(t *testing.T) {
	for _, rel := range Releases() {
		d := fixtureDefs(t, rel)
		enc := func(name string, over map[string]any) []byte { return encodeMessage(t, d, name, over) }

		for _, arming := range []struct {
			state uint8
			armed bool
		}{{ArmingStateArmed, true}, {ArmingStateDisarmed, false}, {0, false}} {
			s, err := d.Status(enc(MsgVehicleStatus, map[string]any{"arming_state": uint64(arming.state),
				"nav_state": uint64(NavStateAutoLoiter), "failsafe": true}))
			if err != nil || s.Armed != arming.armed || s.NavState != NavStateAutoLoiter || !s.Failsafe ||
				s.SystemID != u8("system_id") || s.FailureDetectorStatus != u16("failure_detector_status") {
				t.Errorf("%s status (arming %d): %+v, %v", rel, arming.state, s, err)
			}
		}

		ack, err := d.CommandAck(enc(MsgVehicleCommandAck, map[string]any{"result": uint64(decisions.AckDenied)}))
		wantComp := u16("target_component")
		if rel == Release114 {
			wantComp = uint16(u8("target_component"))
		}
		if err != nil || ack.Result != decisions.AckDenied || ack.Command != u32("command") || ack.TargetComponent != wantComp ||
			ack.ResultParam2 != int32(testValue("int32", "result_param2").(int64)) {
			t.Errorf("%s ack: %+v, %v", rel, ack, err)
		}
	}
}

// A payload of one release read with another release's definitions is
// rejected with a message naming the release it fits, and counted.
func TestWrongReleaseRejected(t *testing.T) {
	defs := map[Release]*Definitions{}
	for _, rel := range Releases() {
		defs[rel] = fixtureDefs(t, rel)
	}
	data := encodeMessage(t, defs[Release115], MsgVehicleStatus, nil)
	_, err := defs[Release116].Decode(MsgVehicleStatus, data)
	const want = "px4: VehicleStatus payload is 82 bytes; release 1.16 expects 80; it matches release 1.15: set px4.release"
	var le *LayoutError
	if !errors.As(err, &le) || !errors.Is(err, ErrLayoutMismatch) || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	for _, from := range Releases() {
		for _, to := range Releases() {
			for _, name := range Messages() {
				data := encodeMessage(t, defs[from], name, nil)
				_, err := defs[to].Decode(name, data)
				same := len(data) == len(encodeMessage(t, defs[to], name, nil))
				switch {
				case same && err != nil:
					t.Errorf("%s payload of %s read as %s: %v", name, from, to, err)
				case !same && err == nil:
					// Sizes within one padding of each other are one length
					// on the wire (rmw pads to 4): a 1.16 FailsafeFlags (86)
					// is an 85-byte one padded, so only the configured
					// release tells them apart.
					if name != MsgFailsafeFlags || from != Release116 {
						t.Errorf("%s payload of %s read as %s accepted", name, from, to)
					}
				case !same && !errors.As(err, &le):
					// A 1.15+ VehicleCommand fits 1.14's padded size; its
					// extra bytes are not zero padding, so it fails to decode.
					if name != MsgVehicleCommand || to != Release114 || !errors.Is(err, dynamic.ErrTrailingBytes) {
						t.Errorf("%s payload of %s read as %s: %v, want a LayoutError", name, from, to, err)
					}
				case !same && !slices.Contains(le.Matches, from):
					t.Errorf("%s payload of %s read as %s: matches %v", name, from, to, le.Matches)
				}
			}
		}
	}
	for _, st := range defs[Release116].Stats() {
		if st.Message == MsgVehicleStatus && (st.LayoutMismatch != 3 || st.Decoded != 1) {
			t.Errorf("1.16 VehicleStatus stats %+v, want 3 rejected (one 1.15 twice, one 1.14) and 1 decoded", st)
		}
	}
}

func TestCheckLength(t *testing.T) {
	cases := []struct {
		msg     string
		rel     Release
		n       int
		matches []Release // nil: accepted
		text    string
	}{
		{MsgVehicleStatus, Release116, 80, nil, ""},
		{MsgVehicleStatus, Release115, 82, nil, ""},
		{MsgVehicleStatus, Release115, 84, nil, ""}, // padded to a multiple of 4
		{MsgVehicleStatus, Release114, 72, nil, ""},
		{MsgVehicleStatus, Release116, 82, []Release{Release115}, "it matches release 1.15: set px4.release"},
		{MsgVehicleStatus, Release116, 84, []Release{Release115}, "it matches release 1.15"},
		{MsgVehicleStatus, Release115, 71, []Release{Release114}, "release 1.15 expects 82; it matches release 1.14"},
		{MsgVehicleLocalPosition, Release114, 216, []Release{Release116}, "it matches release 1.16"},
		{MsgBatteryStatus, Release116, 176, []Release{Release114, Release115}, "it matches releases 1.14, 1.15: set px4.release"},
		{MsgVehicleOdometry, Release115, 100, []Release{}, "matches no supported release (1.14: 114, 1.15: 114, 1.16: 114)"},
		{MsgVehicleCommand, Release114, 56, nil, ""}, // 54 padded: ambiguous, accepted
		{MsgVehicleCommandAck, Release115, 23, []Release{Release114}, "it matches release 1.14"},
	}
	for _, tc := range cases {
		err := CheckLength(tc.msg, tc.rel, tc.n)
		if tc.matches == nil {
			if err != nil {
				t.Errorf("%s %s %d: %v", tc.msg, tc.rel, tc.n, err)
			}
			continue
		}
		var le *LayoutError
		if !errors.As(err, &le) || !slices.Equal(le.Matches, tc.matches) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s %s %d: %v, want matches %v and %q", tc.msg, tc.rel, tc.n, err, tc.matches, tc.text)
		}
	}
	if err := CheckLength("Nope", Release116, 1); !errors.Is(err, ErrUnknownMessage) {
		t.Errorf("unknown message: %v", err)
	}
	if err := CheckLength(MsgVehicleStatus, "2.0", 1); !errors.Is(err, ErrUnknownRelease) {
		t.Errorf("unknown release: %v", err)
	}
}

// Every prefix of every payload is rejected and counted, never a panic.
func TestTruncationRejected(t *testing.T) {
	for _, rel := range Releases() {
		d := fixtureDefs(t, rel)
		for _, name := range Messages() {
			data := encodeMessage(t, d, name, nil)
			for n := range len(data) {
				if _, err := d.Decode(name, data[:n]); err == nil {
					t.Fatalf("%s %s: %d of %d bytes accepted", rel, name, n, len(data))
				}
			}
			for _, st := range d.Stats() {
				if st.Message == name && st.LayoutMismatch+st.Malformed != uint64(len(data)) {
					t.Errorf("%s %s: %+v, want %d rejections", rel, name, st, len(data))
				}
			}
		}
	}
}

func TestMalformedCounted(t *testing.T) {
	d := fixtureDefs(t, Release116)
	data := encodeMessage(t, d, MsgVehicleStatus, map[string]any{"failsafe": true})
	p, _ := d.Plan(MsgVehicleStatus)
	ref, _ := p.Field("failsafe")
	m, err := d.Decode(MsgVehicleStatus, data)
	if err != nil {
		t.Fatal(err)
	}
	boolsRejected := 0
	// Find the failsafe byte by flipping candidates: the decoder must
	// reject a bool of 2 wherever it sits.
	for i := 4; i < len(data); i++ {
		if data[i] != 1 {
			continue
		}
		bad := slices.Clone(data)
		bad[i] = 2
		if _, err := d.Decode(MsgVehicleStatus, bad); err != nil {
			boolsRejected++
			if !errors.Is(err, dynamic.ErrInvalidBool) {
				t.Errorf("byte %d = 2: %v", i, err)
			}
		}
	}
	if boolsRejected == 0 {
		t.Error("no bool of 2 was rejected (failsafe is true)")
	}
	if v, err := m.BoolAt(ref); err != nil || !v {
		t.Errorf("failsafe = %v, %v", v, err)
	}
	bad := slices.Clone(data)
	bad[1] = 3 // not plain CDR
	if _, err := d.Decode(MsgVehicleStatus, bad); !errors.Is(err, dynamic.ErrEncapsulation) {
		t.Errorf("bad header: %v", err)
	}
	st := d.Stats()
	i := slices.IndexFunc(st, func(s Stat) bool { return s.Message == MsgVehicleStatus })
	if st[i].Malformed == 0 || st[i].Decoded != 1 {
		t.Errorf("stats %+v", st[i])
	}
	if _, err := d.Decode("Nope", data); !errors.Is(err, ErrUnknownMessage) {
		t.Errorf("unknown message: %v", err)
	}
}

func TestEncodeCommand(t *testing.T) {
	for _, rel := range Releases() {
		d := fixtureDefs(t, rel)
		c := Command{TimestampUs: 123456789, Command: CmdDoSetMode, Param1: ModeFlagCustomModeEnabled,
			Param2: MainModeAuto, Param3: AutoSubModeLoiter, Param4: float32(math.NaN()), Param5: math.NaN(),
			Param6: -122.5, Param7: 500, TargetSystem: 1, TargetComponent: 1, SourceSystem: 255, SourceComponent: 190,
			Confirmation: 0, FromExternal: true}
		data, err := d.EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		// The test encoder, driven by the same fixture, writes the same bytes.
		want := encodeMessage(t, d, MsgVehicleCommand, map[string]any{
			"timestamp": uint64(123456789), "command": uint64(CmdDoSetMode), "param1": float32(1), "param2": float32(4),
			"param3": float32(3), "param4": float32(math.NaN()), "param5": math.NaN(), "param6": -122.5, "param7": float32(500),
			"target_system": uint64(1), "target_component": uint64(1), "source_system": uint64(255),
			"source_component": uint64(190), "confirmation": uint64(0), "from_external": true})
		if string(data) != string(want) {
			t.Errorf("%s: EncodeCommand\n% x\nwant\n% x", rel, data, want)
		}
		got, err := d.Command(data)
		if err != nil || got.Command != CmdDoSetMode || got.Param3 != AutoSubModeLoiter || !math.IsNaN(got.Param5) ||
			got.SourceComponent != 190 || !got.FromExternal {
			t.Errorf("%s: round trip %+v, %v", rel, got, err)
		}
		c.SourceComponent = 300
		_, err = d.EncodeCommand(c)
		if (rel == Release114) != errors.Is(err, dynamic.ErrKind) {
			t.Errorf("%s: source_component 300: %v", rel, err)
		}
	}
}

// Extraction works from any Fields, such as a ULog data message, and names
// a missing field or one out of range.
func TestExtractFromFields(t *testing.T) {
	f := mapFields{"timestamp": uint64(10), "command": uint64(CmdDoSetMode), "result": uint64(decisions.AckDenied),
		"result_param1": uint64(3), "result_param2": int64(-7), "target_system": uint64(1), "target_component": uint64(2),
		"from_external": true}
	a, err := ExtractCommandAck(f)
	if err != nil || a.Command != CmdDoSetMode || a.Result != decisions.AckDenied || a.ResultParam2 != -7 || a.TimestampUs != 10 {
		t.Errorf("ack %+v, %v", a, err)
	}
	delete(f, "result")
	_, err = ExtractCommandAck(f)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "result" || fe.Message != MsgVehicleCommandAck || !errors.Is(err, ErrField) {
		t.Errorf("missing result: %v", err)
	}
	f["result"] = uint64(300)
	if _, err := ExtractCommandAck(f); !errors.As(err, &fe) || fe.Field != "result" {
		t.Errorf("result out of range: %v", err)
	}
	if _, err := ExtractStatus(f, "9.9"); !errors.Is(err, ErrUnknownRelease) {
		t.Errorf("unknown release: %v", err)
	}
}

// The constants ghost acts on equal the fixture definitions' constants.
func TestConstantsMatchFixtures(t *testing.T) {
	want := map[string]int64{
		"NAVIGATION_STATE_MANUAL": int64(NavStateManual), "NAVIGATION_STATE_ALTCTL": int64(NavStateAltctl),
		"NAVIGATION_STATE_POSCTL": int64(NavStatePosctl), "NAVIGATION_STATE_AUTO_MISSION": int64(NavStateAutoMission),
		"NAVIGATION_STATE_AUTO_LOITER": int64(NavStateAutoLoiter), "NAVIGATION_STATE_AUTO_RTL": int64(NavStateAutoRTL),
		"NAVIGATION_STATE_POSITION_SLOW": int64(NavStatePositionSlow), "NAVIGATION_STATE_ACRO": int64(NavStateAcro),
		"NAVIGATION_STATE_DESCEND": int64(NavStateDescend), "NAVIGATION_STATE_TERMINATION": int64(NavStateTermination),
		"NAVIGATION_STATE_OFFBOARD": int64(NavStateOffboard), "NAVIGATION_STATE_STAB": int64(NavStateStab),
		"NAVIGATION_STATE_AUTO_TAKEOFF": int64(NavStateAutoTakeoff), "NAVIGATION_STATE_AUTO_LAND": int64(NavStateAutoLand),
		"NAVIGATION_STATE_AUTO_FOLLOW_TARGET": int64(NavStateAutoFollowTarget), "NAVIGATION_STATE_AUTO_PRECLAND": int64(NavStateAutoPrecland),
		"NAVIGATION_STATE_ORBIT": int64(NavStateOrbit), "NAVIGATION_STATE_AUTO_VTOL_TAKEOFF": int64(NavStateAutoVTOLTakeoff),
		"NAVIGATION_STATE_EXTERNAL1": int64(NavStateExternal1), "NAVIGATION_STATE_EXTERNAL8": int64(NavStateExternal8),
		"ARMING_STATE_ARMED": int64(ArmingStateArmed), "ARMING_STATE_DISARMED": int64(ArmingStateDisarmed),
		"ARMING_STATE_INIT": int64(ArmingStateInit), "ARMING_STATE_STANDBY": int64(ArmingStateStandby),
		"ARMING_STATE_STANDBY_ERROR": int64(ArmingStateStandbyError), "ARMING_STATE_SHUTDOWN": int64(ArmingStateShutdown),
		"ARMING_STATE_IN_AIR_RESTORE": int64(ArmingStateInAirRestore),
		"VEHICLE_CMD_RESULT_ACCEPTED": int64(decisions.AckAccepted), "VEHICLE_CMD_RESULT_TEMPORARILY_REJECTED": int64(decisions.AckTemporarilyRejected),
		"VEHICLE_CMD_RESULT_DENIED": int64(decisions.AckDenied), "VEHICLE_CMD_RESULT_UNSUPPORTED": int64(decisions.AckUnsupported),
		"VEHICLE_CMD_RESULT_FAILED": int64(decisions.AckFailed), "VEHICLE_CMD_RESULT_IN_PROGRESS": int64(decisions.AckInProgress),
		"VEHICLE_CMD_RESULT_CANCELLED":     int64(decisions.AckCancelled),
		"VEHICLE_CMD_NAV_RETURN_TO_LAUNCH": int64(CmdNavReturnToLaunch), "VEHICLE_CMD_NAV_LAND": int64(CmdNavLand),
		"VEHICLE_CMD_DO_SET_MODE": int64(CmdDoSetMode), "VEHICLE_CMD_DO_FLIGHTTERMINATION": int64(CmdDoFlightTermination),
		"VEHICLE_CMD_COMPONENT_ARM_DISARM": int64(CmdComponentArmDisarm), "VEHICLE_CMD_SET_NAV_STATE": int64(CmdSetNavState),
		"ARMING_ACTION_DISARM": ArmingActionDisarm, "ARMING_ACTION_ARM": ArmingActionArm,
		"BATTERY_WARNING_NONE": int64(BatteryWarningNone), "BATTERY_WARNING_LOW": int64(BatteryWarningLow),
		"BATTERY_WARNING_CRITICAL": int64(BatteryWarningCritical), "BATTERY_WARNING_EMERGENCY": int64(BatteryWarningEmergency),
		"WARNING_NONE": int64(BatteryWarningNone), "WARNING_LOW": int64(BatteryWarningLow),
		"WARNING_CRITICAL": int64(BatteryWarningCritical), "WARNING_EMERGENCY": int64(BatteryWarningEmergency),
		"POSE_FRAME_NED": int64(PoseFrameNED), "POSE_FRAME_FRD": int64(PoseFrameFRD),
		"VELOCITY_FRAME_NED": int64(VelocityFrameNED), "VELOCITY_FRAME_BODY_FRD": int64(VelocityFrameBodyFRD),
	}
	seen := map[string]bool{}
	for _, rel := range Releases() {
		d := fixtureDefs(t, rel)
		for _, name := range Messages() {
			spec, _ := d.Spec(name)
			for _, c := range spec.Constants {
				v, err := strconv.ParseInt(c.Value, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case c.Name == "NAVIGATION_STATE_MAX":
					if v != int64(NavStateMax(rel)) {
						t.Errorf("%s NAVIGATION_STATE_MAX %d, NavStateMax %d", rel, v, NavStateMax(rel))
					}
				case c.Name == "MESSAGE_VERSION":
					if v != int64(d.MessageVersion(name)) || v != int64(messages[slices.IndexFunc(messages[:], func(m messageInfo) bool { return m.name == name })].versions[rel.index()]) {
						t.Errorf("%s %s MESSAGE_VERSION %d disagrees with the topic table", rel, name, v)
					}
				default:
					w, ok := want[c.Name]
					if !ok {
						continue
					}
					seen[c.Name] = true
					if w != v {
						t.Errorf("%s %s.%s = %d, Go constant %d", rel, name, c.Name, v, w)
					}
				}
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("constant %s not found in any fixture", name)
		}
	}
	if NavStateName(Release116, 4) != "AUTO_LOITER" || NavStateName(Release115, 25) != "EXTERNAL3" ||
		NavStateName(Release114, 25) != "UNKNOWN(25)" || NavStateName(Release114, 6) != "UNKNOWN(6)" {
		t.Error("NavStateName")
	}
}

func TestTopics(t *testing.T) {
	cases := []struct {
		msg  string
		rel  Release
		ns   string
		want string
	}{
		{MsgVehicleStatus, Release114, "", "/fmu/out/vehicle_status"},
		{MsgVehicleStatus, Release115, "/", "/fmu/out/vehicle_status"},
		{MsgVehicleStatus, Release116, "", "/fmu/out/vehicle_status_v1"},
		{MsgVehicleStatus, Release116, "uav_1", "/uav_1/fmu/out/vehicle_status_v1"},
		{MsgVehicleLocalPosition, Release116, "/uav_1/", "/uav_1/fmu/out/vehicle_local_position"},
		{MsgVehicleCommand, Release115, "/fleet/uav_2", "/fleet/uav_2/fmu/in/vehicle_command"},
		{MsgVehicleCommandAck, Release116, "", "/fmu/out/vehicle_command_ack"},
		{MsgBatteryStatus, Release116, "", "/fmu/out/battery_status"},
	}
	for _, tc := range cases {
		got, err := TopicName(tc.msg, tc.rel, tc.ns)
		if err != nil || got != tc.want {
			t.Errorf("%s %s %q: %q, %v; want %q", tc.msg, tc.rel, tc.ns, got, err, tc.want)
		}
		fromDefs, err := fixtureDefs(t, tc.rel).TopicName(tc.msg, tc.ns)
		if err != nil || fromDefs != tc.want {
			t.Errorf("%s %s from definitions: %q, %v", tc.msg, tc.rel, fromDefs, err)
		}
	}
	for _, ns := range []string{"1uav", "uav-1", "a//b", "ü"} {
		if _, err := TopicName(MsgVehicleStatus, Release116, ns); err == nil {
			t.Errorf("namespace %q accepted", ns)
		}
	}
	topics, err := Topics(Release116, "uav_1")
	if err != nil || len(topics) != len(Messages()) {
		t.Fatal(topics, err)
	}
	for _, tp := range topics {
		if tp.Out != strings.Contains(tp.Name, "/fmu/out/") || tp.QoS.Reliability != "best_effort" || tp.QoS.Durability != "volatile" {
			t.Errorf("topic %+v", tp)
		}
		if tp.Out && tp.QoS.Depth != 5 {
			t.Errorf("subscription depth %d", tp.QoS.Depth)
		}
	}
	for _, s := range []string{"1.14", "v1.15", "v1.16.2", " 1.15.4 "} {
		if _, err := ParseRelease(s); err != nil {
			t.Errorf("ParseRelease(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "1.13", "2", "v1.17.0", "1.16.x.y"} {
		if _, err := ParseRelease(s); !errors.Is(err, ErrUnknownRelease) {
			t.Errorf("ParseRelease(%q) accepted", s)
		}
	}
}

func writeFixtures(t *testing.T, prefix string, rel Release) {
	t.Helper()
	dir := filepath.Join(prefix, "share", "px4_msgs", "msg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range fixtureTexts(t, rel) {
		if err := os.WriteFile(filepath.Join(dir, name+".msg"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadFromAmentIndex(t *testing.T) {
	root := t.TempDir()
	a, b, empty := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "empty")
	writeFixtures(t, a, Release115)
	writeFixtures(t, b, Release116)
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	sep := string(os.PathListSeparator)
	for _, tc := range []struct {
		path string
		want Release
	}{
		{empty + sep + a + sep + b, Release115},
		{b + sep + a, Release116},
		{sep + b, Release116},
	} {
		d, err := LoadFromAmentIndex(tc.path)
		if err != nil || d.Release() != tc.want {
			t.Errorf("%q: %v, %v; want %s", tc.path, d, err, tc.want)
			continue
		}
		if !strings.HasPrefix(d.Source(), root) {
			t.Errorf("source %q", d.Source())
		}
		if _, err := d.Status(encodeMessage(t, d, MsgVehicleStatus, nil)); err != nil {
			t.Error(err)
		}
	}
	if _, err := LoadFromAmentIndex(empty); !errors.Is(err, ErrNotFound) {
		t.Errorf("no px4_msgs: %v", err)
	}
	if _, err := LoadFromAmentIndex(""); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty path: %v", err)
	}
	if err := os.Remove(filepath.Join(b, "share", "px4_msgs", "msg", "VehicleAttitude.msg")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFromAmentIndex(b); err == nil || !strings.Contains(err.Error(), "VehicleAttitude.msg") {
		t.Errorf("missing file: %v", err)
	}
	// A definition that is a device (one that never ends) is refused.
	if _, err := os.Stat("/dev/zero"); err == nil {
		if err := os.Symlink("/dev/zero", filepath.Join(b, "share", "px4_msgs", "msg", "VehicleAttitude.msg")); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFromAmentIndex(b); !errors.Is(err, limitedfile.ErrNotRegular) || !strings.Contains(err.Error(), "VehicleAttitude.msg") {
			t.Errorf("endless file: %v", err)
		}
	}
	// Mixed layouts match no single release.
	mixed := fixtureTexts(t, Release114)
	mixed[MsgVehicleStatus] = fixtureTexts(t, Release116)[MsgVehicleStatus]
	if _, err := detectRelease(mixed); !errors.Is(err, ErrLayoutMismatch) {
		t.Errorf("mixed layouts: %v", err)
	}
}

// Definitions of another release than declared are refused at start-up.
func TestNewDefinitionsChecksRelease(t *testing.T) {
	_, err := NewDefinitions(Release116, fixtureTexts(t, Release115))
	var le *LayoutError
	if !errors.As(err, &le) || !le.Definition || !strings.Contains(err.Error(), "definition is") {
		t.Errorf("1.15 texts as 1.16: %v", err)
	}
	if _, err := NewDefinitions("1.99", nil); !errors.Is(err, ErrUnknownRelease) {
		t.Errorf("unknown release: %v", err)
	}
	if _, err := NewDefinitions(Release116, map[string]string{"VehicleStatus": "uint8 x\nstring s\n"}); err == nil {
		t.Error("a VehicleStatus with a string accepted")
	}
	if _, err := NewDefinitions(Release116, map[string]string{"VehicleStatus": "not a definition"}); err == nil {
		t.Error("bad text accepted")
	}
}

// When px4_msgs is installed (AMENT_PREFIX_PATH), its definitions load and
// match one supported release.
func TestInstalledPX4Msgs(t *testing.T) {
	path := os.Getenv("AMENT_PREFIX_PATH")
	d, err := LoadFromAmentIndex(path)
	if errors.Is(err, ErrNotFound) {
		t.Skip("px4_msgs not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("px4_msgs %s from %s", d.Release(), d.Source())
}
