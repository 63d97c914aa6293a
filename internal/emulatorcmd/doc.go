// Package emulatorcmd is the command line of the standalone emulator,
// shared by cmd/psd2-emulator and "psd2 emulator": its flags ([Register]),
// their checks ([Config.Check], the loopback rule of [CheckAddr]) and
// starting the server with its files written safely ([Start]).
package emulatorcmd
