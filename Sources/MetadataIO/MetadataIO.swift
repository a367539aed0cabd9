/// Reads metadata from any file into the Metadata model.
public enum MetadataIOModule {}
