// Package paymentrulestest holds the payment bodies the tests of the
// payment rules run on: valid bodies of each service and product, edits,
// and one case per rule with the violation it must give ([Cases]). The
// unit tests of package paymentrules check them in process and the
// emulator's tests send them over the wire, so both see the same rules.
// Only tests import it.
package paymentrulestest
