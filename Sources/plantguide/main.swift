import PlantGuideCLI

await PlantGuideCommand.runAsMain()
