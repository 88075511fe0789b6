package chaos

// HAMetadataLoss deletes the resource's HA ConfigMaps.
type HAMetadataLoss struct{}

// Name implements Fault.
func (HAMetadataLoss) Name() string { return "ha-metadata-lost" }

// Apply implements Fault.
func (HAMetadataLoss) Apply(t Target, r string) error { return t.DeleteHAMetadata(r) }

// Effects says that the HA metadata is gone.
func (HAMetadataLoss) Effects() Effect { return LosesHAMetadata }
