func title() -> String {
    AppString("settings.title", "The settings screen's title")
}
