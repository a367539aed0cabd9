/// The Audit module. See Package.swift for its layer.
public enum AuditModule {}
