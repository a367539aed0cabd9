/// The HEIF module. See Package.swift for its layer.
public enum HEIFModule {}
