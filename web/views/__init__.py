"""The pages, by what they show: accounts (home, sign-up), campaigns, characters."""
