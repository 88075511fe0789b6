package image

import (
	"fmt"
	"strings"
)

// REST SSL keys (Flink's SecurityOptions). The REST endpoint's stores fall back to the
// security.ssl.* keys without "rest." when theirs are unset, as Flink's SSLUtils reads them.
const (
	keyRESTSSLEnabled     = "security.ssl.rest.enabled"
	keyRESTSSLAuth        = "security.ssl.rest.authentication-enabled"
	keyRESTKeystore       = "security.ssl.rest.keystore"
	keyRESTKeystorePass   = "security.ssl.rest.keystore-password"
	keyRESTKeyPass        = "security.ssl.rest.key-password"
	keyRESTTruststore     = "security.ssl.rest.truststore"
	keyRESTTruststorePass = "security.ssl.rest.truststore-password"
	keySSLKeystore        = "security.ssl.keystore"
	keySSLKeystorePass    = "security.ssl.keystore-password"
	keySSLKeyPass         = "security.ssl.key-password"
	keySSLTruststore      = "security.ssl.truststore"
	keySSLTruststorePass  = "security.ssl.truststore-password"
)

// RESTSSL is how a JobManager's REST endpoint serves: plain HTTP, HTTPS, or HTTPS asking for a
// client certificate its trust store signed. The stores are paths in the JobManager's pod.
type RESTSSL struct {
	Enabled, Authentication bool
	// KeyStore, KeyStorePassword and KeyPassword are the server's key and chain.
	KeyStore, KeyStorePassword, KeyPassword string
	// TrustStore and TrustStorePassword verify clients when Authentication is on.
	TrustStore, TrustStorePassword string
}

// RESTSSLOf reads the REST endpoint's SSL settings from a Flink configuration. Like Flink, it
// refuses a boolean that is not true or false (in any case), and an SSL endpoint without a
// keystore (or, with authentication, without a trust store).
func RESTSSLOf(conf map[string]string) (RESTSSL, error) {
	var s RESTSSL
	var err error
	if s.Enabled, err = flinkBool(conf, keyRESTSSLEnabled, false); err != nil {
		return RESTSSL{}, err
	}
	if s.Authentication, err = flinkBool(conf, keyRESTSSLAuth, false); err != nil {
		return RESTSSL{}, err
	}
	if !s.Enabled {
		return RESTSSL{}, nil
	}
	either := func(key, fallback string) string {
		if v := conf[key]; v != "" {
			return v
		}
		return conf[fallback]
	}
	s.KeyStore, s.KeyStorePassword = either(keyRESTKeystore, keySSLKeystore), either(keyRESTKeystorePass, keySSLKeystorePass)
	s.KeyPassword = either(keyRESTKeyPass, keySSLKeyPass)
	s.TrustStore, s.TrustStorePassword = either(keyRESTTruststore, keySSLTruststore), either(keyRESTTruststorePass, keySSLTruststorePass)
	switch {
	case s.KeyStore == "":
		return RESTSSL{}, fmt.Errorf("%s is true but neither %s nor %s is set", keyRESTSSLEnabled, keyRESTKeystore, keySSLKeystore)
	case s.Authentication && s.TrustStore == "":
		return RESTSSL{}, fmt.Errorf("%s is true but neither %s nor %s is set", keyRESTSSLAuth, keyRESTTruststore, keySSLTruststore)
	}
	return s, nil
}

// flinkBool reads a boolean key as Flink's configuration does.
func flinkBool(conf map[string]string, key string, def bool) (bool, error) {
	v, ok := conf[key]
	switch {
	case !ok:
		return def, nil
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	}
	return false, fmt.Errorf("could not parse value '%s' for key '%s': not a boolean", v, key)
}
