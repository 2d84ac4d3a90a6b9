package transport

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestSplitServiceTypeName(t *testing.T) {
	tests := []struct {
		in       string
		pkg, srv string
		ok       bool
	}{
		{"rcl_interfaces/srv/GetParameters", "rcl_interfaces", "GetParameters", true},
		{"lifecycle_msgs/srv/ChangeState", "lifecycle_msgs", "ChangeState", true},
		{"rcl_interfaces/msg/ParameterEvent", "", "", false},
		{"rcl_interfaces/srv/Get%s", "", "", false},
		{"srv/GetParameters", "", "", false},
	}
	for _, tt := range tests {
		p, s, err := SplitServiceTypeName(tt.in)
		if (err == nil) != tt.ok || p != tt.pkg || s != tt.srv {
			t.Errorf("%q: %q %q %v", tt.in, p, s, err)
		}
		if err != nil && !errors.Is(err, ErrServiceName) {
			t.Errorf("%q: %v does not wrap ErrServiceName", tt.in, err)
		}
	}
}

func TestFakeServe(t *testing.T) {
	ft := NewFakeTransport()
	echo := func(req []byte) ([]byte, error) { return append([]byte("re:"), req...), nil }
	if err := ft.Serve("~/x", "pkg/srv/X", ServiceQoS(), echo); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name, typ string
		h         ServiceHandler
	}{{"~/x", "pkg/srv/X", echo}, {"~/y", "pkg/msg/X", echo}, {"~/z", "pkg/srv/X", nil}} {
		if err := ft.Serve(bad.name, bad.typ, ServiceQoS(), bad.h); err == nil {
			t.Errorf("Serve(%q, %q) accepted", bad.name, bad.typ)
		}
	}
	if err := ft.Serve("~/boom", "pkg/srv/X", ServiceQoS(), func([]byte) ([]byte, error) { return nil, errors.New("boom") }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ft.Run(ctx) }()
	got, err := ft.Call(ctx, "~/x", []byte("q"))
	if err != nil || !bytes.Equal(got, []byte("re:q")) {
		t.Errorf("Call = %q, %v", got, err)
	}
	if _, err := ft.Call(ctx, "~/boom", nil); err == nil {
		t.Error("a handler error was not returned")
	}
	if _, err := ft.Call(ctx, "~/none", nil); err == nil {
		t.Error("a call to no service succeeded")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
