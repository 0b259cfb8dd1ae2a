package natsqueue_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	stdstrings "strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/sluiceml/sluice/queue/natsqueue"
)

// runSecureServer starts an embedded JetStream server as newServer does,
// with opts' security settings.
func runSecureServer(t *testing.T, secure func(*server.Options)) *server.Server {
	t.Helper()
	o := &server.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true,
	}
	secure(o)
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	return s
}

// roundTrip enqueues, closes and drains a queue opened by Dial with opts.
func roundTrip(t *testing.T, url string, opts ...natsqueue.Option) error {
	t.Helper()
	q, err := natsqueue.Dial(bg, url, uniqueName("secure"), append(opts, natsqueue.PollInterval(50*time.Millisecond))...)
	if err != nil {
		return err
	}
	defer q.Stop(bg)
	want := units(3)
	if err := q.EnqueueStrings(bg, want...); err != nil {
		return err
	}
	if err := q.Close(bg); err != nil {
		return err
	}
	got, err := drain(bg, q)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		t.Fatalf("drained %q, want %q", got, want)
	}
	return nil
}

// A server that requires a user and password serves a queue dialled with
// them (NATS's own nats.UserInfo, passed by WithNATSOptions), and refuses
// one without them or with a wrong password, with NATS's authorization
// error.
func TestUserPassword(t *testing.T) {
	s := runSecureServer(t, func(o *server.Options) { o.Username, o.Password = "worker", "s3cret" })
	for _, tc := range []struct {
		name string
		opts []natsqueue.Option
		ok   bool
	}{
		{"right credentials", []natsqueue.Option{natsqueue.NATSOptions(nats.UserInfo("worker", "s3cret"))}, true},
		{"no credentials", nil, false},
		{"wrong password", []natsqueue.Option{natsqueue.NATSOptions(nats.UserInfo("worker", "guess"))}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := roundTrip(t, s.ClientURL(), tc.opts...)
			switch {
			case tc.ok && err != nil:
				t.Fatal(err)
			case !tc.ok && (!errors.Is(err, nats.ErrAuthorization) || !stdstrings.Contains(err.Error(), s.ClientURL())):
				t.Fatalf("Dial = %v, want nats.ErrAuthorization naming %s", err, s.ClientURL())
			case !tc.ok:
				t.Log(err)
			}
		})
	}
}

// certs is a certificate authority made for one test, with a server
// certificate for 127.0.0.1 and a client certificate it signed.
type certs struct {
	pool           *x509.CertPool
	server, client tls.Certificate
}

func newCerts(t *testing.T) certs {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey := key()
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sluice test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage) tls.Certificate {
		k := key()
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k}
	}
	c := certs{pool: x509.NewCertPool()}
	c.pool.AddCert(ca)
	c.server = leaf(2, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	c.client = leaf(3, "worker", x509.ExtKeyUsageClientAuth)
	return c
}

// A server that requires TLS and a client certificate serves a queue
// dialled with the CA and a certificate (nats.Secure), and refuses one
// that does not trust the server's certificate or has none of its own.
func TestTLS(t *testing.T) {
	c := newCerts(t)
	s := runSecureServer(t, func(o *server.Options) {
		o.TLS, o.TLSVerify, o.TLSTimeout = true, true, 5
		o.TLSConfig = &tls.Config{
			Certificates: []tls.Certificate{c.server}, MinVersion: tls.VersionTLS12,
			ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: c.pool,
		}
	})
	url := "tls://" + s.Addr().String()
	for _, tc := range []struct {
		name string
		tls  *tls.Config
		ok   bool
	}{
		{"trusted, with a client certificate", &tls.Config{RootCAs: c.pool, Certificates: []tls.Certificate{c.client}}, true},
		{"server not trusted", &tls.Config{Certificates: []tls.Certificate{c.client}}, false},
		{"no client certificate", &tls.Config{RootCAs: c.pool}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := roundTrip(t, url, natsqueue.NATSOptions(nats.Secure(tc.tls)))
			switch {
			case tc.ok && err != nil:
				t.Fatal(err)
			case !tc.ok && (err == nil || !stdstrings.Contains(err.Error(), url)):
				t.Fatalf("Dial = %v, want an error naming %s", err, url)
			case !tc.ok:
				t.Log(err)
			}
		})
	}
}
