package sca

import (
	"reflect"

	"github.com/tppkit/psd2/client"
)

// failOption returns a client.RequestOption that fails the call with err
// before anything is sent. The client package has no exported constructor
// for such an option (its parameter type is unexported), so it is built
// with reflect.MakeFunc from the option's own type.
func failOption(err error) client.RequestOption {
	t := reflect.TypeOf(client.RequestOption(nil))
	ev := reflect.ValueOf(&err).Elem()
	f := reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value { return []reflect.Value{ev} })
	return f.Interface().(client.RequestOption)
}
