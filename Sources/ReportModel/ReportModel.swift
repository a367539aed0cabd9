/// The ReportModel module. See Package.swift for its layer.
public enum ReportModelModule {}
