package rules

// The payment services and products of the platform's path table
// (docs/interface.md section 10 "Paths"): /v1/{service}/{product}.

// Payment services, the first path segment after /v1.
const (
	ServicePayments = "payments"
	ServicePeriodic = "periodic-payments"
	ServiceBulk     = "bulk-payments"
)

// PaymentServices are the payment services, in the order of the path
// table.
var PaymentServices = [...]string{ServicePayments, ServicePeriodic, ServiceBulk}

// Payment products the bank offers.
const (
	ProductNDCT    = "norwegian-domestic-credit-transfers"
	ProductSEPA    = "sepa-credit-transfers"
	ProductCBCT    = "cross-border-credit-transfers"
	ProductInstant = "instant-norwegian-domestic-credit-transfers-straks"
)

// KnownProduct reports whether product is one the bank offers; any other
// is answered 404 PRODUCT_UNKNOWN.
func KnownProduct(product string) bool {
	switch product {
	case ProductNDCT, ProductSEPA, ProductCBCT, ProductInstant:
		return true
	}
	return false
}

// isPaymentCreation reports whether path is the pattern
// /v1/{service}/{product} of a payment service.
func isPaymentCreation(path string) bool {
	for _, svc := range PaymentServices {
		if path == "/v1/"+svc+"/{product}" {
			return true
		}
	}
	return false
}
