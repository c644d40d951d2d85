package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/proto"
)

const (
	encryptedEncoding = "binary/encrypted"
	keyIDMetadata     = "encryption-key-id"
	nonceBytes        = 12
	tagBytes          = 16
)

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// EncryptionCodec is the package's payload codec (src/codec/encryption-codec.ts): AES-256-GCM over the
// whole Payload (protobuf bytes); data = 12-byte nonce + ciphertext + 16-byte tag; metadata
// encoding=binary/encrypted and encryption-key-id=<id>. The first key encrypts, every key decrypts.
type EncryptionCodec struct {
	keys            map[string]cipher.AEAD
	encryptingKeyID string
}

// NewEncryptionCodec reads PAYLOAD_ENCRYPTION_KEYS: `id:base64key` entries separated by commas or
// newlines (blank entries and # comments skipped); a key is 32 bytes of standard or URL-safe base64,
// padding optional (as the package reads them). Errors name the entry or key id, never key material.
func NewEncryptionCodec(keys string) (*EncryptionCodec, error) {
	codec := &EncryptionCodec{keys: map[string]cipher.AEAD{}}
	entries := strings.FieldsFunc(keys, func(r rune) bool { return r == ',' || r == '\n' })
	for i, entry := range entries {
		entry = strings.TrimSpace(entry)
		if entry == "" || strings.HasPrefix(entry, "#") {
			continue
		}
		id, material, ok := strings.Cut(entry, ":")
		id, material = strings.TrimSpace(id), strings.TrimSpace(material)
		if !ok || !keyIDPattern.MatchString(id) {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEYS: entry %d is not id:base64key", i+1)
		}
		if _, seen := codec.keys[id]; seen {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEYS: key id %q appears more than once", id)
		}
		material = strings.TrimRight(strings.NewReplacer("-", "+", "_", "/").Replace(material), "=")
		key, err := base64.RawStdEncoding.DecodeString(material)
		if err != nil || len(key) != 32 {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEYS: key %q is not 32 bytes of base64", id)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		if codec.keys[id], err = cipher.NewGCM(block); err != nil {
			return nil, err
		}
		if codec.encryptingKeyID == "" {
			codec.encryptingKeyID = id
		}
	}
	if codec.encryptingKeyID == "" {
		return nil, errors.New("PAYLOAD_ENCRYPTION_KEYS holds no key (expected id:base64key, ...)")
	}
	return codec, nil
}

// Encode encrypts each payload with the first key, under a fresh random nonce.
func (c *EncryptionCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, nonceBytes)
		if _, err := rand.Read(nonce); err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				"encoding":    []byte(encryptedEncoding),
				keyIDMetadata: []byte(c.encryptingKeyID),
			},
			Data: c.keys[c.encryptingKeyID].Seal(nonce, nonce, plain, nil), // nonce ‖ ciphertext ‖ tag
		}
	}
	return out, nil
}

// Decode decrypts each encrypted payload with the key it names; others pass through unchanged (e.g. a run
// started before encryption was on). An unknown key id or a failed tag check is an error, never garbage.
func (c *EncryptionCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()["encoding"]) != encryptedEncoding {
			out[i] = p
			continue
		}
		id, named := p.GetMetadata()[keyIDMetadata]
		if !named {
			return nil, fmt.Errorf("encrypted payload has no %s in its metadata", keyIDMetadata)
		}
		gcm, known := c.keys[string(id)]
		if !known {
			return nil, fmt.Errorf("payload encrypted with key id %q which is not in PAYLOAD_ENCRYPTION_KEYS", id)
		}
		data := p.GetData()
		if len(data) < nonceBytes+tagBytes {
			return nil, fmt.Errorf("payload encrypted with key id %q is truncated", id)
		}
		plain, err := gcm.Open(nil, data[:nonceBytes], data[nonceBytes:], nil)
		if err != nil {
			return nil, fmt.Errorf("payload encrypted with key id %q failed authentication", id)
		}
		decoded := &commonpb.Payload{}
		if err := proto.Unmarshal(plain, decoded); err != nil {
			return nil, err
		}
		out[i] = decoded
	}
	return out, nil
}
