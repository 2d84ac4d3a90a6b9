//go:build rclgo

package transport

/*
#cgo LDFLAGS: -ldl -lrmw -lrcutils

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rcutils/allocator.h>
#include <rcutils/error_handling.h>
#include <rmw/rmw.h>
#include <rmw/serialized_message.h>
#include <rosidl_runtime_c/message_type_support_struct.h>
#include <rosidl_runtime_c/service_type_support_struct.h>
#include <rosidl_typesupport_introspection_c/message_introspection.h>

typedef const void * (*ghost_get_ts)(void);

// ghost_sym calls the type support getter named fmt(pkg, srv[, half]) in lib.
static const void * ghost_sym(void * lib, const char * fmt, const char * pkg, const char * srv, const char * half) {
	char name[512];
	if (snprintf(name, sizeof name, fmt, pkg, srv, half) >= (int)sizeof name) {
		return NULL;
	}
	void * sym = dlsym(lib, name);
	return sym == NULL ? NULL : ((ghost_get_ts)sym)();
}

// ghost_load_service loads the C type support of service pkg/srv/srv, the
// message type supports of its request and response, and their
// introspection (struct size, init and fini). It returns NULL or a
// static error text.
static const char * ghost_load_service(const char * pkg, const char * srv, void ** libs,
		const void ** srvTS, const void ** ts, const void ** members) {
	char name[256];
	snprintf(name, sizeof name, "lib%s__rosidl_typesupport_c.so", pkg);
	libs[0] = dlopen(name, RTLD_LAZY);
	snprintf(name, sizeof name, "lib%s__rosidl_typesupport_introspection_c.so", pkg);
	libs[1] = dlopen(name, RTLD_LAZY);
	if (libs[0] == NULL || libs[1] == NULL) {
		return "cannot open the type support libraries";
	}
	*srvTS = ghost_sym(libs[0], "rosidl_typesupport_c__get_service_type_support_handle__%s__srv__%s%s", pkg, srv, "");
	const char * halves[2] = {"_Request", "_Response"};
	for (int i = 0; i < 2; i++) {
		ts[i] = ghost_sym(libs[0], "rosidl_typesupport_c__get_message_type_support_handle__%s__srv__%s%s", pkg, srv, halves[i]);
		const rosidl_message_type_support_t * in = ghost_sym(libs[1],
			"rosidl_typesupport_introspection_c__get_message_type_support_handle__%s__srv__%s%s", pkg, srv, halves[i]);
		members[i] = in == NULL ? NULL : in->data;
	}
	if (*srvTS == NULL || ts[0] == NULL || ts[1] == NULL || members[0] == NULL || members[1] == NULL) {
		return "type support symbol not found";
	}
	return NULL;
}

static void * ghost_new_struct(const void * members) {
	const rosidl_typesupport_introspection_c__MessageMembers * m = members;
	void * p = calloc(1, m->size_of_);
	if (p != NULL) {
		m->init_function(p, ROSIDL_RUNTIME_C_MSG_INIT_ALL);
	}
	return p;
}

static void ghost_free_struct(const void * members, void * p) {
	const rosidl_typesupport_introspection_c__MessageMembers * m = members;
	if (p != NULL) {
		m->fini_function(p);
		free(p);
	}
}

static void ghost_fini(rmw_serialized_message_t * m) {
	if (rmw_serialized_message_fini(m) != RMW_RET_OK) {
		rcutils_reset_error();
	}
}

// ghost_zeroing_reallocate hands out zeroed memory for a new buffer.
// rmw_serialize on Fast DDS (Humble) returns its size estimate's length,
// which can exceed what it wrote (an empty sequence of 8-byte elements is
// estimated aligned); zeroed memory makes those extra bytes zeros, which
// the decoder checks, instead of whatever the allocator held.
static void * ghost_zeroing_reallocate(void * p, size_t n, void * state) {
	(void)state;
	if (p == NULL) {
		return calloc(1, n);
	}
	return realloc(p, n);
}

// ghost_serialize serializes the struct p to a malloc'ed buffer. The
// serialized message starts empty, so rmw_serialize's one resize takes
// zeroed memory.
static int ghost_serialize(const void * ts, const void * p, uint8_t ** out, size_t * len) {
	rcutils_allocator_t a = rcutils_get_default_allocator();
	a.reallocate = ghost_zeroing_reallocate;
	rmw_serialized_message_t m = rmw_get_zero_initialized_serialized_message();
	if (rmw_serialized_message_init(&m, 0, &a) != RMW_RET_OK) {
		return -1;
	}
	if (rmw_serialize(p, ts, &m) != RMW_RET_OK) {
		ghost_fini(&m);
		return -1;
	}
	*out = malloc(m.buffer_length > 0 ? m.buffer_length : 1);
	if (*out == NULL) {
		ghost_fini(&m);
		return -1;
	}
	memcpy(*out, m.buffer, m.buffer_length);
	*len = m.buffer_length;
	ghost_fini(&m);
	return 0;
}

static int ghost_deserialize(const void * ts, uint8_t * data, size_t len, void * p) {
	rmw_serialized_message_t m = rmw_get_zero_initialized_serialized_message();
	m.buffer = data;
	m.buffer_length = len;
	m.buffer_capacity = len;
	m.allocator = rcutils_get_default_allocator();
	return rmw_deserialize(&m, ts, p) == RMW_RET_OK ? 0 : -1;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/tiiuae/rclgo/pkg/rclgo/types"
)

// The service route: rclgo's Service takes and sends C structs through a
// types.ServiceTypeSupport. This one loads the C type support by dlsym, as
// rclgo's dynamic message loader does, and converts each C struct to and
// from CDR with rmw_serialize/rmw_deserialize, so handlers exchange the
// serialized bytes of the project's own codec; no generated bindings.

// cdrServiceTypeSupport is a types.ServiceTypeSupport over CDR bytes.
type cdrServiceTypeSupport struct {
	libs      [2]unsafe.Pointer
	srv       unsafe.Pointer // rosidl_service_type_support_t*
	req, resp *cdrTypeSupport
}

func (s *cdrServiceTypeSupport) Request() types.MessageTypeSupport  { return s.req }
func (s *cdrServiceTypeSupport) Response() types.MessageTypeSupport { return s.resp }
func (s *cdrServiceTypeSupport) TypeSupport() unsafe.Pointer        { return s.srv }

// loadServiceTypeSupport loads "pkg/srv/Name"; the libraries stay loaded
// for the life of the process, like the message type supports.
func loadServiceTypeSupport(typeName string) (*cdrServiceTypeSupport, error) {
	pkg, srv, err := SplitServiceTypeName(typeName)
	if err != nil {
		return nil, err
	}
	cPkg, cSrv := C.CString(pkg), C.CString(srv)
	defer C.free(unsafe.Pointer(cPkg))
	defer C.free(unsafe.Pointer(cSrv))
	s := &cdrServiceTypeSupport{}
	var ts, members [2]unsafe.Pointer
	if e := C.ghost_load_service(cPkg, cSrv, &s.libs[0], &s.srv, &ts[0], &members[0]); e != nil {
		return nil, fmt.Errorf("type support for %s: %s", typeName, C.GoString(e))
	}
	s.req = &cdrTypeSupport{ts: ts[0], members: members[0]}
	s.resp = &cdrTypeSupport{ts: ts[1], members: members[1]}
	return s, nil
}

// cdrTypeSupport is a types.MessageTypeSupport whose Go messages are CDR
// bytes (cdrMessage).
type cdrTypeSupport struct {
	ts      unsafe.Pointer // rosidl_message_type_support_t* (typesupport_c)
	members unsafe.Pointer // introspection MessageMembers*
}

func (t *cdrTypeSupport) New() types.Message { return &cdrMessage{ts: t} }

func (t *cdrTypeSupport) PrepareMemory() unsafe.Pointer { return C.ghost_new_struct(t.members) }

func (t *cdrTypeSupport) ReleaseMemory(p unsafe.Pointer) { C.ghost_free_struct(t.members, p) }

// AsCStruct deserializes src's bytes into dst, a struct PrepareMemory made.
// On failure dst keeps its defaults and src records the error.
func (t *cdrTypeSupport) AsCStruct(dst unsafe.Pointer, src types.Message) {
	m, ok := src.(*cdrMessage)
	if !ok || dst == nil || len(m.data) == 0 {
		if ok {
			m.err = errors.New("no serialized message")
		}
		return
	}
	buf := C.CBytes(m.data)
	defer C.free(buf)
	if C.ghost_deserialize(t.ts, (*C.uint8_t)(buf), C.size_t(len(m.data)), dst) != 0 {
		m.err = errors.New("rmw_deserialize failed")
	}
}

// AsGoStruct serializes the struct src into dst's bytes.
func (t *cdrTypeSupport) AsGoStruct(dst types.Message, src unsafe.Pointer) {
	m, ok := dst.(*cdrMessage)
	if !ok {
		return
	}
	var out *C.uint8_t
	var n C.size_t
	if src == nil || C.ghost_serialize(t.ts, src, &out, &n) != 0 {
		m.data, m.err = nil, errors.New("rmw_serialize failed")
		return
	}
	m.data = C.GoBytes(unsafe.Pointer(out), C.int(n))
	C.free(unsafe.Pointer(out))
}

func (t *cdrTypeSupport) TypeSupport() unsafe.Pointer { return t.ts }

// cdrMessage is a request or response as CDR bytes.
type cdrMessage struct {
	ts   *cdrTypeSupport
	data []byte
	err  error
}

func (m *cdrMessage) CloneMsg() types.Message {
	return &cdrMessage{ts: m.ts, data: append([]byte(nil), m.data...), err: m.err}
}

func (m *cdrMessage) SetDefaults() { m.data, m.err = nil, nil }

func (m *cdrMessage) GetTypeSupport() types.MessageTypeSupport { return m.ts }
