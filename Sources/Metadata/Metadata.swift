/// The Metadata module. See Package.swift for its layer.
public enum MetadataModule {}
