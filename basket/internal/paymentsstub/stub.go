// Package payments is a TEMPORARY stand-in for github.com/tppkit/psd2/payments
// while that package is being written. It is deleted before the final commit.
package payments

import (
	"context"
	"net/http"

	"github.com/tppkit/psd2/client"
)

type TransactionStatus string

const (
	StatusACCP TransactionStatus = "ACCP"
	StatusACSC TransactionStatus = "ACSC"
	StatusACTC TransactionStatus = "ACTC"
	StatusPATC TransactionStatus = "PATC"
	StatusPDNG TransactionStatus = "PDNG"
	StatusRCVD TransactionStatus = "RCVD"
	StatusRJCT TransactionStatus = "RJCT"
	StatusCANC TransactionStatus = "CANC"
)

type Product string

const ProductNorwegianDomestic Product = "norwegian-domestic-credit-transfers"

type StatusResponse struct {
	PaymentID         string            `json:"paymentId"`
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	FundsAvailable    *bool             `json:"fundsAvailable,omitempty"`
	Links             client.Links      `json:"_links,omitempty"`
}

type Service struct{ c *client.Client }

func New(c *client.Client) *Service { return &Service{c: c} }

func (s *Service) Status(ctx context.Context, product Product, id string, opts ...client.RequestOption) (*StatusResponse, error) {
	var out StatusResponse
	_, err := s.c.Do(ctx, client.Operation{Name: "payments.Status", Method: http.MethodGet, Path: client.JoinPath("/v1/payments", string(product), id, "status")}, &out, opts...)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
