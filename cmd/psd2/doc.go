// Command psd2 is the operator's tool for a TPP on the shared Norwegian
// PSD2 interface: what an operator otherwise does by hand with curl and
// openssl.
//
// Usage:
//
//	psd2 <command> [flags]
//
// Commands:
//
//	keyid     the keyId a certificate gives (PEM or PKCS#12): the SDK's form
//	          (docs/interface.md section 5.4), the other renderings a bank
//	          might expect (OpenSSL's, OID.2.5.4.97=, Go's, a padded serial)
//	          and the certificate's validity
//	sign      sign a request offline; print its headers and a curl command
//	verify    check a captured request (raw HTTP: request line, headers,
//	          blank line, body) against docs/interface.md section 5 and name
//	          each fault: Digest, Date skew, header list and order, keyId
//	          form, algorithm, signature
//	probe     send one signed GET per keyId rendering to a bank's sandbox and
//	          report which one the bank verifies
//	emulator  serve the emulator on loopback: one bank, or several at once
//	          with -banks a,b (one host name each, <id>.localhost); every
//	          flag of cmd/psd2-emulator (-addr, -public, -trust,
//	          -known-issues, -limit, the timeouts, -out with its checks);
//	          -control ADDR serves the scenario and clock controls as
//	          JSON on a loopback listener of its own, behind a token it
//	          prints; "psd2 emulator ctl <control> name=value..." calls
//	          one (docs/emulator.md lists them)
//	sandbox   reset, list, or seed mock data from a JSON file: customers,
//	          each with its accounts, each account with its transactions
//	          (an example: cmd/psd2/testdata/seed.example.json)
//	journal   list the payments in doubt, resolve one, or settle one by hand
//	          (-by who -reason why)
//	budget    an account's counted calls without the PSU, and when the next
//	          one is allowed
//	banks     list the bank directory (package banks), or one bank
//
// A bank is named by -bank <id> (with -env sandbox or production, and
// -banks-file for the TPP's own directory file) or by -url <base URL>.
// Credentials come from -cert/-key (PEM) or -p12; the PKCS#12 password is
// read from the environment variable -password-env names
// (PSD2_P12_PASSWORD), never from the command line.
//
// Every command takes -h and --json. No command prints a private key, a
// password or an account id it was given; journal entries are printed in
// their redacted form. The signature and keyId sign prints are not
// secrets: they go over the wire in every request.
//
// Exit status, the same for every command:
//
//	0  done; verify: nothing wrong; probe: at least one rendering verified
//	1  the check ran and found a fault (verify), or the bank verified no
//	   rendering (probe)
//	2  a command-line mistake
//	3  any other error: a file, the network, the bank, the store
package main
